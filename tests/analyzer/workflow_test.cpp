// WorkFlow on its own: the work that may (and must) be in flight at a marked call, and what
// a host wait there waits for. Each test gives a snippet of CUDA host code in which a call is
// marked with a comment, `// [[name]]`, and asserts the state before it, in the style of
// clang's own dataflow unit tests. The snippets are parsed in CUDA mode against a small
// prelude of the runtime's declarations (the catalogue knows calls by name), so no CUDA
// installation is needed.
#include "../../analyzer/checks/ImplicitSyncCheck.h"
#include "../../analyzer/core/UnitFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

using namespace clang;
using namespace clang::ast_matchers;
using namespace syncwatch;

namespace {

const char *Include = "#include <cuda_prelude.h>";
const char *Prelude = R"cuda(
#define __global__ __attribute__((global))
typedef unsigned long size_t;
typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct dim3 { unsigned x, y, z; dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {} };
extern "C" unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shm = 0, cudaStream_t s = 0);
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
#define cudaStreamNonBlocking 0x01
extern "C" {
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
}
__global__ void scale(float *x);
__global__ void shift(float *x);
)cuda";

// What the flow says before one call: "may", "must" and "waited" list the work by name in
// source order ("kernel 'scale'@12": the line it was issued at); "caller" is the callers'
// work (none, unknown, known).
struct Before {
  std::string May, Must, Waited, Caller;
};

std::ostream &operator<<(std::ostream &O, const Before &B) {
  return O << "may: " << B.May << "; must: " << B.Must << "; waited: " << B.Waited << "; caller: " << B.Caller;
}
bool operator==(const Before &A, const Before &B) {
  return A.May == B.May && A.Must == B.Must && A.Waited == B.Waited && A.Caller == B.Caller;
}

class Forward : public MatchFinder::MatchCallback {
public:
  explicit Forward(UnitFacts &F) : F(F) {}
  void run(const MatchFinder::MatchResult &R) override { F.observe(R); }

private:
  UnitFacts &F;
};

// Parses Code and gives the state before each marked call, by its mark.
class Flows {
public:
  explicit Flows(const std::string &Code, unsigned FlowLimit = 64) {
    // The prelude is a system header, as cuda_runtime.h is: what it declares is CUDA's, not
    // the user's code (a call of an undefined function of the user's that takes a stream is
    // taken to synchronize it).
    std::string Text = std::string(Include) + Code;
    AST = tooling::buildASTFromCodeWithArgs(
        Text,
        {"-xcuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_90", "-std=c++17",
         "-Wno-unknown-cuda-version", "-isystem", "/syncwatch-test"},
        "snippet.cu", "workflow_test", std::make_shared<PCHContainerOperations>(),
        tooling::getClangStripDependencyFileAdjuster(), {{"/syncwatch-test/cuda_prelude.h", Prelude}});
    if (!AST || AST->getDiagnostics().hasErrorOccurred()) {
      Error = "the snippet does not parse";
      return;
    }
    MatchFinder Finder;
    Forward Cb(Facts);
    Facts.reset();
    Facts.setFlowLimit(FlowLimit);
    Facts.registerMatchers(Finder, &Cb);
    Finder.matchAST(AST->getASTContext());
    // Marks: "// [[name]]" at the end of a line.
    std::map<unsigned, std::string> Marks;
    std::istringstream Lines(Text);
    std::string L;
    for (unsigned N = 1; std::getline(Lines, L); ++N)
      if (auto P = L.find("// [["); P != std::string::npos)
        Marks[N] = L.substr(P + 5, L.find("]]", P) - P - 5);
    const SourceManager &SM = AST->getSourceManager();
    for (const FunctionCalls &F : Facts.functions())
      for (const WorkCall &C : F.Calls) {
        auto M = Marks.find(SM.getSpellingLineNumber(C.Loc));
        if (M == Marks.end())
          continue;
        const CallFlow *Flow = Facts.flow().at(C);
        if (!Flow) {
          At[M->second] = {"unreached", "", "", ""};
          continue;
        }
        Before B;
        for (const Pending &P : Flow->InFlight) {
          B.May += (B.May.empty() ? "" : ", ") + name(*P.Work);
          if (P.Must)
            B.Must += (B.Must.empty() ? "" : ", ") + name(*P.Work);
        }
        for (const Pending &P : Flow->Waited)
          B.Waited += (B.Waited.empty() ? "" : ", ") + name(*P.Work);
        B.Caller = Flow->Caller == CallerWork::None ? "none" : Flow->Caller == CallerWork::Known ? "known" : "unknown";
        At[M->second] = B;
      }
  }
  const UnitFacts &facts() const { return Facts; }
  Before at(const std::string &Mark) const {
    auto It = At.find(Mark);
    return It == At.end() ? Before{"no call marked " + Mark + (Error.empty() ? "" : ": " + Error), "", "", ""}
                          : It->second;
  }

private:
  std::string name(const WorkCall &W) const {
    std::string N = W.isLaunch() ? "kernel '" + calleeName(*W.Call) + "'"
                                 : "'" + (W.Api ? std::string(W.Api->Name) : calleeName(*W.Call)) + "'";
    unsigned Line = AST->getSourceManager().getSpellingLineNumber(W.Loc);
    return N + "@" + std::to_string(Line - PreludeLines());
  }
  // The #include takes the snippet's first line, the empty one after R"(.
  static unsigned PreludeLines() { return 0; }
  std::unique_ptr<ASTUnit> AST;
  UnitFacts Facts;
  std::map<std::string, Before> At;
  std::string Error;
};

} // namespace

// Line numbers in the expectations are the snippet's own (1 = the line after R"(").

TEST(WorkFlow, AStreamSyncWaitsForItsStreamsWork) {
  Flows F(R"(
int main() {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, s>>>(x);
  cudaStreamSynchronize(s);  // [[sync]]
  cudaFree(x);               // [[free]]
}
)");
  EXPECT_EQ(F.at("sync"), (Before{"kernel 'scale'@5", "kernel 'scale'@5", "kernel 'scale'@5", "none"}));
  EXPECT_EQ(F.at("free"), (Before{"", "", "", "none"}));
}

TEST(WorkFlow, WorkOnOneBranchMayBeRunningNotMust) {
  Flows F(R"(
int main(int argc, char **) {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  if (argc > 1)
    scale<<<1, 1, 0, s>>>(x);
  cudaFree(x);  // [[free]]
}
)");
  EXPECT_EQ(F.at("free"), (Before{"kernel 'scale'@6", "", "kernel 'scale'@6", "none"}));
}

TEST(WorkFlow, ASyncOfOneStreamLeavesTheOtherStreamsWork) {
  Flows F(R"(
int main() {
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  float *x; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, a>>>(x);
  shift<<<1, 1, 0, b>>>(x);
  cudaStreamSynchronize(a);  // [[sync_a]]
  cudaFree(x);               // [[free]]
}
)");
  EXPECT_EQ(F.at("sync_a"), (Before{"kernel 'scale'@7, kernel 'shift'@8", "kernel 'scale'@7, kernel 'shift'@8",
                                    "kernel 'scale'@7", "none"}));
  EXPECT_EQ(F.at("free"), (Before{"kernel 'shift'@8", "kernel 'shift'@8", "kernel 'shift'@8", "none"}));
}

TEST(WorkFlow, ALoopCarriesOneIterationsWorkIntoTheNext) {
  Flows F(R"(
int main() {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  for (int i = 0; i < 10; ++i) {
    cudaMemcpyAsync(x, x, 4, cudaMemcpyHostToDevice, s);  // [[copy]]
    scale<<<1, 1, 0, s>>>(x);
  }
}
)");
  // The first iteration has nothing in flight, the later ones the last iteration's kernel.
  EXPECT_EQ(F.at("copy"), (Before{"kernel 'scale'@7", "", "", "none"}));
}

TEST(WorkFlow, ALoopWhoseBodyDrainsRunsAtLeastOnce) {
  Flows F(R"(
int main(int n, char **) {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, s>>>(x);
  for (int i = 0; i < n; ++i)
    cudaStreamSynchronize(s);
  cudaFree(x);  // [[free]]
}
)");
  // An unknown trip count is taken as at least one: the loop's sync drained the kernel.
  EXPECT_EQ(F.at("free"), (Before{"", "", "", "none"}));
}

TEST(WorkFlow, AnEventCoversTheWorkBeforeItsRecord) {
  Flows F(R"(
int main() {
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t e;
  float *x; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, s>>>(x);
  cudaEventRecord(e, s);     // [[record]]
  shift<<<1, 1, 0, s>>>(x);  // [[shift]]
  cudaEventSynchronize(e);  // [[wait]]
  cudaFree(x);              // [[free]]
}
)");
  EXPECT_EQ(F.at("record"), (Before{"kernel 'scale'@6", "kernel 'scale'@6", "", "none"}));
  EXPECT_EQ(F.at("shift"), (Before{"kernel 'scale'@6", "kernel 'scale'@6", "", "none"}));
  EXPECT_EQ(F.at("wait"), (Before{"kernel 'scale'@6, kernel 'shift'@8", "kernel 'scale'@6, kernel 'shift'@8",
                                  "kernel 'scale'@6", "none"}));
  EXPECT_EQ(F.at("free"), (Before{"kernel 'shift'@8", "kernel 'shift'@8", "kernel 'shift'@8", "none"}));
}

TEST(WorkFlow, ALegacyCopyDoesNotWaitForNonBlockingStreams) {
  Flows F(R"(
int main() {
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreate(&b);
  float *x, h[1]; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, a>>>(x);
  shift<<<1, 1, 0, b>>>(x);
  cudaMemcpy(h, x, 4, cudaMemcpyDeviceToHost);  // [[copy]]
  cudaDeviceSynchronize();                      // [[device]]
  cudaFree(x);                                  // [[free]]
}
)");
  // The blocking stream's kernel is waited for; the non-blocking one's is not.
  EXPECT_EQ(F.at("copy"), (Before{"kernel 'scale'@7, kernel 'shift'@8", "kernel 'scale'@7, kernel 'shift'@8",
                                  "kernel 'shift'@8", "none"}));
  EXPECT_EQ(F.at("device"), (Before{"kernel 'scale'@7", "kernel 'scale'@7", "kernel 'scale'@7", "none"}));
  EXPECT_EQ(F.at("free"), (Before{"", "", "", "none"}));
}

TEST(WorkFlow, AHelpersSummaryLeavesWorkOnItsStreamParameter) {
  Flows F(R"(
static void launch(float *x, cudaStream_t s) { scale<<<1, 1, 0, s>>>(x); }
int main() {
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  float *x; cudaMalloc((void **)&x, 4);
  launch(x, a);
  cudaStreamSynchronize(b);  // [[sync_b]]
  cudaStreamSynchronize(a);  // [[sync_a]]
}
)");
  EXPECT_EQ(F.at("sync_b"), (Before{"'launch'@8", "'launch'@8", "", "none"}));
  EXPECT_EQ(F.at("sync_a"), (Before{"'launch'@8", "'launch'@8", "'launch'@8", "none"}));
}

TEST(WorkFlow, ACalleeSeesTheWorkItsCallerLeftRunning) {
  Flows F(R"(
static void release(float *x) { cudaFree(x); }  // [[free]]
int main() {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  scale<<<1, 1, 0, s>>>(x);
  release(x);
}
)");
  EXPECT_EQ(F.at("free"), (Before{"", "", "", "known"}));
}

TEST(WorkFlow, AnExternalFunctionOfAnOpenUnitHasUnknownCallers) {
  Flows F(R"(
void release(float *x) { cudaFree(x); }  // [[free]]
)");
  EXPECT_EQ(F.at("free"), (Before{"", "", "", "unknown"}));
}

// The solver's limit is far above what a finite lattice needs; a function that reaches it is
// not judged, and each flow check says so in a note instead of judging half a fixpoint.
TEST(WorkFlow, AFunctionThatReachesTheLimitIsNotJudgedAndSaysSo) {
  const char *Code = R"(
int main(int n, char **) {
  cudaStream_t s; cudaStreamCreate(&s);
  float *x; cudaMalloc((void **)&x, 4);
  for (int i = 0; i < n; ++i)
    scale<<<1, 1, 0, s>>>(x);
  cudaFree(x);  // [[free]]
}
)";
  Flows Normal(Code);
  EXPECT_TRUE(Normal.facts().flow().unjudged().empty());
  EXPECT_EQ(Normal.at("free").May, "kernel 'scale'@6");
  Flows Limited(Code, /*FlowLimit=*/1);
  ASSERT_EQ(Limited.facts().flow().unjudged().size(), 1u);
  EXPECT_EQ(Limited.facts().flow().unjudged()[0].Function->getName(), "main");
  EXPECT_EQ(Limited.at("free").May, "unreached");
  struct Capture : DiagnosticSink {
    std::vector<std::string> Messages;
    void emit(const CheckDiagnostic &D, const SourceManager &) override { Messages.push_back(D.Message); }
  } Sink;
  ImplicitSyncCheck(DefaultCheckOptions{}).judge(Limited.facts(), Sink);
  ASSERT_EQ(Sink.Messages.size(), 1u);
  EXPECT_NE(Sink.Messages[0].find("'main' was not judged by syncwatch-implicit-sync: its flow analysis stopped at "
                                  "the limit of"), std::string::npos)
      << Sink.Messages[0];
  Capture Unlimited;
  ImplicitSyncCheck(DefaultCheckOptions{}).judge(Normal.facts(), Unlimited);
  ASSERT_EQ(Unlimited.Messages.size(), 1u);  // the cudaFree, judged
  EXPECT_NE(Unlimited.Messages[0].find("'cudaFree'"), std::string::npos) << Unlimited.Messages[0];
}
