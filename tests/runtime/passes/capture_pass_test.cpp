// The Capture pass (syncwatch-capture-breaking-call at run time) on hand-built windows, with
// the notes made by the recorder's CaptureTracker as the program's calls came: the call that
// broke a capture, at its line and thread, with the line and thread that began it. The cases
// are the failure classes of docs/measured-behaviour.md "Stream capture" (the truth table
// measured on an H100); tests/runtime/replay_test.py holds the same on a GPU recording.
#include "../../../interposer/engine/Engine.h"
#include "../../../interposer/recorder/CaptureTracker.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {

constexpr std::uint64_t us = 1000;
const void *const Captured = reinterpret_cast<const void *>(0x5000);  // the captured stream's handle
const void *const Other = reinterpret_cast<const void *>(0x6000);
constexpr std::uint64_t MainTid = 100, LoaderTid = 101, WorkerTid = 102;

// A process whose calls go through a CaptureTracker, as the recorder's handler does.
struct Program {
  EventLog Log;
  CaptureTracker Tracker;
  std::uint32_t Corr = 0;
  std::uint64_t Now = 0;
  Program() {
    Log.Streams = {{13, StreamFlag::NonBlocking, 0}, {15, StreamFlag::Blocking, 0}};
    Log.Sites[1] = {"capture_step", "/src/step.cu", 40};  // begins the capture
    Log.Sites[2] = {"capture_step", "/src/step.cu", 44};  // a call inside it
    Log.Sites[3] = {"capture_step", "/src/step.cu", 52};  // ends it
    Log.Sites[4] = {"loader", "/src/loader.cu", 17};      // another thread's call
    Log.Sites[5] = {"capture_step", "/src/step.cu", 47};  // a later call inside it
    Log.Process.Pid = MainTid;
    Log.ThreadNames[LoaderTid] = "loader";
  }
  ApiCall &call(const char *Api, std::uint32_t Site, std::uint64_t Thread) {
    Now += 10;
    Log.Calls.push_back({++Corr, 0, Thread, internApiName(Api), Now * us, (Now + 2) * us, Site});
    return Log.Calls.back();
  }
  void begin(const void *Handle, std::uint32_t Stream, CaptureMode Mode, std::uint64_t Thread = MainTid,
             std::uint32_t Site = 1) {
    ApiCall &C = call("cudaStreamBeginCapture", Site, Thread);
    bool Opened = false;
    C.CaptureNumber = Tracker.began(Handle, Stream, Mode, Thread, Site, Opened);
  }
  void fail(const char *Api, std::int32_t Error, std::uint32_t Site, std::uint64_t Thread = MainTid) {
    ApiCall &C = call(Api, Site, Thread);
    C.CaptureNumber = Tracker.failed(Thread, C.Api, Error, Site);
  }
  void end(const void *Handle, std::int32_t Error, std::uint32_t Nodes = 0, std::uint64_t Thread = MainTid) {
    ApiCall &C = call("cudaStreamEndCapture", 3, Thread);
    bool Closed = false;
    C.CaptureNumber = Tracker.ended(Handle, Error, Nodes, Closed);
  }
  std::vector<Finding> findings(Engine &E) const {
    E.consume(Log);
    return E.findings();
  }
  std::vector<Finding> findings() const {
    Engine E;
    return findings(E);
  }
};

std::string evidence(const Finding &F, const std::string &Key) {
  for (const auto &[K, V] : F.Evidence)
    if (K == Key)
      return V;
  return "<none>";
}

bool has(const std::string &Text, const std::string &Part) { return Text.find(Part) != std::string::npos; }

} // namespace

TEST(CapturePass, ASyncInsideTheCaptureIsNamedWithTheLineThatBeganIt) {
  Program P;
  P.begin(Captured, 13, CaptureMode::Global);
  P.fail("cudaStreamSynchronize", 900, 2);
  P.end(Captured, 901);
  Engine E;
  auto F = P.findings(E);
  ASSERT_EQ(F.size(), 1u);  // the end is not a second finding: the sync broke the capture
  EXPECT_EQ(F[0].Rule, "syncwatch-capture-breaking-call");
  EXPECT_EQ(F[0].Where.File, "/src/step.cu");
  EXPECT_EQ(F[0].Where.Line, 44u);
  EXPECT_TRUE(has(F[0].Message, "'cudaStreamSynchronize' broke a CUDA graph capture once: it returned cudaErrorStreamCaptureUnsupported")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "global-mode capture of nonblocking stream 13")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "the capture was begun at /src/step.cu:40 on thread main")) << F[0].Message;
  EXPECT_EQ(evidence(F[0], "captureBegunAt"), "/src/step.cu:40");
  EXPECT_EQ(evidence(F[0], "captureMode"), "global");
  EXPECT_EQ(evidence(F[0], "fromOtherThread"), "0 of 1");
  EXPECT_FALSE(has(F[0].Message, "this call was made on"));
  auto Figures = E.captureFigures();
  ASSERT_EQ(Figures.size(), 3u);
  EXPECT_EQ(Figures[0], (std::pair<std::string, std::string>{"captures.ended", "1"}));
  EXPECT_EQ(Figures[1], (std::pair<std::string, std::string>{"captures.failed", "1"}));
  EXPECT_EQ(capturesText(Figures), "1 graph capture ended: 1 failed (the findings say which call broke it)\n");
}

TEST(CapturePass, AnotherThreadsCallBreaksAGlobalCaptureAndBothThreadsAreNamed) {
  Program P;
  P.begin(Captured, 13, CaptureMode::Global);
  P.fail("cudaMallocHost", 900, 4, LoaderTid);
  P.end(Captured, 901);
  auto F = P.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 17u);  // the loader's line
  EXPECT_TRUE(has(F[0].Message, "the capture was begun at /src/step.cu:40 on thread main")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "this call was made on thread loader (tid 101)")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "in global mode any thread's unsafe call breaks the capture")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "cudaStreamCaptureModeThreadLocal")) << F[0].Message;
  EXPECT_EQ(evidence(F[0], "captureThread"), "main");
  EXPECT_EQ(evidence(F[0], "fromOtherThread"), "1 of 1");
  EXPECT_TRUE(has(evidence(F[0], "threads"), "loader (tid 101)"));
}

TEST(CapturePass, AFailingCallBelongsToItsOwnThreadsCaptureElseAGlobalOne) {
  Program P;
  P.begin(Other, 15, CaptureMode::ThreadLocal, WorkerTid, 1);  // the worker's own capture
  P.begin(Captured, 13, CaptureMode::Global, MainTid, 1);
  // The worker's cudaMalloc breaks its own thread-local capture, not main's global one.
  P.fail("cudaMalloc", 900, 2, WorkerTid);
  // The loader has no capture: its failing call broke the global one.
  P.fail("cudaMallocHost", 900, 4, LoaderTid);
  auto F = P.findings();
  ASSERT_EQ(F.size(), 2u);
  for (const Finding &G : F) {
    if (G.Where.Line == 44u) {
      EXPECT_EQ(evidence(G, "captureMode"), "thread-local");
      EXPECT_EQ(evidence(G, "captureThread"), "tid 102");
      EXPECT_TRUE(has(G.Message, "capture of blocking stream 15")) << G.Message;
    } else {
      EXPECT_EQ(G.Where.Line, 17u);
      EXPECT_EQ(evidence(G, "captureMode"), "global");
      EXPECT_EQ(evidence(G, "captureThread"), "main");
    }
  }
}

TEST(CapturePass, CallsThatFailAfterTheBreakAreConsequencesNotFindings) {
  Program P;
  P.begin(Captured, 15, CaptureMode::ThreadLocal);
  P.fail("cudaLaunchKernel", 906, 2);  // a legacy-stream launch under a blocking capture
  P.fail("cudaLaunchKernel", 901, 5);  // the next launch into the invalidated capture
  P.fail("cudaMemcpyAsync", 901, 5);
  P.end(Captured, 901);
  auto F = P.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 44u);
  EXPECT_TRUE(has(F[0].Message, "cudaErrorStreamCaptureImplicit (the call used the legacy stream")) << F[0].Message;
}

TEST(CapturePass, AnEndThatFailedWithNothingSeenBreakingItIsTheFinding) {
  Program P;
  P.begin(Captured, 13, CaptureMode::Global);
  P.end(Captured, 904);  // a forked stream was never joined back
  auto F = P.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 52u);
  EXPECT_TRUE(has(F[0].Message, "'cudaStreamEndCapture' ended a CUDA graph capture that failed once: it returned cudaErrorStreamCaptureUnjoined")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "was not joined back")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "made no graph")) << F[0].Message;
}

TEST(CapturePass, ACaptureThatMadeAGraphIsNoFindingAndItsNodesAreCounted) {
  Program P;
  P.begin(Captured, 13, CaptureMode::ThreadLocal);
  P.call("cudaLaunchKernel", 2, MainTid);
  P.end(Captured, 0, 3);
  P.begin(Captured, 13, CaptureMode::ThreadLocal);
  P.end(Captured, 0, 5);
  Engine E;
  EXPECT_TRUE(P.findings(E).empty());
  EXPECT_EQ(capturesText(E.captureFigures()), "2 graph captures ended: none failed; the 2 graphs made have 8 nodes\n");
  EXPECT_EQ(P.Tracker.open(), 0u);
  // A process without captures says nothing of them.
  EXPECT_TRUE(Engine().captureFigures().empty());
  EXPECT_EQ(capturesText({}), "");
}

TEST(CapturePass, ACaptureErrorWithNoCaptureSeenIsStillReported) {
  Program P;  // (begun before syncwatch was loaded, or through a call it does not follow)
  P.fail("cudaStreamSynchronize", 900, 2);
  auto F = P.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_TRUE(has(F[0].Message, "with no capture begun that syncwatch saw")) << F[0].Message;
  EXPECT_EQ(evidence(F[0], "captureBegunAt"), "<none>");
}

TEST(CapturePass, CallsOutsideCapturesAndASuccessfulEndUnseenBeginAreNotFindings) {
  Program P;
  P.call("cudaStreamSynchronize", 2, MainTid);
  P.end(Other, 0);  // the end of a capture begun before syncwatch was loaded: no note
  EXPECT_EQ(P.Log.Calls.back().CaptureNumber, 0u);
  P.end(Other, 901);  // but its failure is said
  auto F = P.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 52u);
  EXPECT_TRUE(has(F[0].Message, "with no capture begun that syncwatch saw")) << F[0].Message;
}

TEST(CaptureTracker, AnEndFromTheWrongThreadLeavesTheCaptureOpen) {
  CaptureTracker T;
  bool Opened = false, Closed = false;
  T.began(Captured, 13, CaptureMode::Global, MainTid, 1, Opened);
  EXPECT_TRUE(Opened);
  const CaptureNote *N = captureNoteOf(T.ended(Captured, 908, 0, Closed));
  ASSERT_NE(N, nullptr);
  EXPECT_FALSE(Closed);
  EXPECT_EQ(T.open(), 1u);
  N = captureNoteOf(T.ended(Captured, 0, 2, Closed));
  ASSERT_NE(N, nullptr);
  EXPECT_TRUE(Closed);
  EXPECT_EQ(N->Nodes, 2u);
  EXPECT_EQ(T.ended(Captured, 0, 0, Closed), 0u);  // an end of no capture syncwatch saw
  // A second begin on a stream still listed (its end unseen) replaces it.
  T.began(Captured, 13, CaptureMode::Global, MainTid, 1, Opened);
  T.began(Captured, 13, CaptureMode::Relaxed, MainTid, 1, Opened);
  EXPECT_EQ(T.open(), 1u);
}

TEST(CaptureNote, ARecordingKeepsErrorsAndNotes) {
  Program P;
  P.begin(Captured, 13, CaptureMode::Global);
  P.fail("cudaMallocHost", 900, 4, LoaderTid);
  P.fail("cudaLaunchKernel", 901, 5);
  P.end(Captured, 901);
  std::ostringstream Out;
  writeEventLog(Out, P.Log);
  EXPECT_TRUE(has(Out.str(), "\terr=900\tcapture=breaks,100,13,global,1,0,4,101,cudaMallocHost,900\n")) << Out.str();
  EXPECT_TRUE(has(Out.str(), "\tcapture=begin,100,13,global,1,0,0,0,-,0\n")) << Out.str();
  std::istringstream In(Out.str());
  ParseResult R = readEventLog(In);
  ASSERT_EQ(R.Error, "");
  ASSERT_EQ(R.Log.Calls.size(), P.Log.Calls.size());
  for (std::size_t I = 0; I < P.Log.Calls.size(); ++I) {
    const CaptureNote *A = P.Log.Calls[I].capture(), *B = R.Log.Calls[I].capture();
    ASSERT_TRUE(A && B);
    EXPECT_EQ(A->Error, B->Error);
    EXPECT_EQ(captureNoteText(*A), captureNoteText(*B));
  }
  // An error with no capture known keeps its error alone.
  std::istringstream Orphan("# syncwatch-events 1\nC\t1\t1\tcudaStreamSynchronize\t1\t2\t0\terr=900\nE\t1\n");
  ParseResult O = readEventLog(Orphan);
  ASSERT_EQ(O.Error, "");
  ASSERT_NE(O.Log.Calls[0].capture(), nullptr);
  EXPECT_EQ(O.Log.Calls[0].capture()->Error, 900);
  EXPECT_FALSE(O.Log.Calls[0].capture()->knownCapture());
  std::ostringstream Again;
  writeEventLog(Again, O.Log);
  EXPECT_TRUE(has(Again.str(), "\terr=900\n")) << Again.str();
  // Findings from the recording are the program's.
  Engine E;
  E.consume(R.Log);
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[0].Where.Line, 17u);
  for (const char *Bad : {"capture=breaks,1", "capture=nope,1,2,global,1,0,0,0,-,0", "capture=begin,1,x,global,1,0,0,0,-,0",
                          "capture=begin,1,2,sometimes,1,0,0,0,-,0", "err=x"}) {
    std::istringstream Line(std::string("# syncwatch-events 1\nC\t1\t1\tcudaMalloc\t1\t2\t0\t") + Bad + "\n");
    EXPECT_NE(readEventLog(Line).Error.find("malformed API call record"), std::string::npos) << Bad;
  }
}

TEST(CaptureNote, NumbersAndErrorNames) {
  CaptureNote N;
  EXPECT_EQ(captureNoteText(N), "begin,0,?,?,0,0,0,0,-,0");
  EXPECT_EQ(sizeof(ApiCall), 64u);  // the note is a number in the padding
  std::uint32_t Kept = internCaptureNote(N);
  ASSERT_NE(Kept, 0u);
  EXPECT_EQ(captureNoteText(*captureNoteOf(Kept)), captureNoteText(N));
  EXPECT_EQ(captureNoteOf(Kept), captureNoteOf(Kept));  // one copy, never moved
  EXPECT_EQ(captureNoteOf(0), nullptr);
  EXPECT_EQ(cudaErrorName(907), "cudaErrorCapturedEvent");
  EXPECT_EQ(cudaErrorName(12345), "error 12345");
  EXPECT_TRUE(isCaptureError(900) && isCaptureError(908) && !isCaptureError(899) && !isCaptureError(909));
}

namespace {

// A torch.compile note as the recorder makes it (ApiHandler.h noteTorchGraphHint): a record of
// its own at the line that called the compiled function.
void torchSays(Program &P, CaptureNote::Role Role, const std::string &Message, std::uint32_t Site) {
  ApiCall &C = P.call("torch.compile", Site, MainTid);
  C.Exit = C.Enter;
  CaptureNote N;
  N.What = Role;
  N.Reason = Message;
  C.CaptureNumber = internCaptureNote(N);
}

} // namespace

TEST(CapturePass, TorchCompilesSkipIsNamedAtTheCallingLineWithTorchsReasonAndWhatToChange) {
  Program P;
  P.Log.Sites[6] = {"train", "/src/train.py", 41};
  P.Log.Sites[7] = {"train", "/src/train.py", 42};
  P.Log.Sites[8] = {"train", "/src/train.py", 45};
  torchSays(P, CaptureNote::Role::TorchSkip,
            "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
            "   File \"/src/train.py\", line 17, in bump\n    x.add_(1)\n",
            6);
  torchSays(P, CaptureNote::Role::TorchSkip, "skipping cudagraphs due to cpu device (arg1_1)", 7);
  torchSays(P, CaptureNote::Role::TorchHint,
            "CUDAGraph supports dynamic shapes by recording a new graph for each distinct input size. We have "
            "observed 51 distinct sizes.",
            8);
  P.call("cudaStreamSynchronize", 2, MainTid);  // outside any capture: nothing
  Engine E;
  auto F = P.findings(E);
  ASSERT_EQ(F.size(), 3u);
  std::map<unsigned, const Finding *> At;
  for (const Finding &G : F) {
    EXPECT_EQ(G.Rule, "syncwatch-capture-breaking-call");
    At[G.Where.Line] = &G;
  }
  ASSERT_TRUE(At.count(41) && At.count(42) && At.count(45));
  const std::string &Mutated = At[41]->Message;
  EXPECT_TRUE(has(Mutated, "ran the function called here without CUDA graphs")) << Mutated;
  EXPECT_TRUE(has(Mutated, "torch says 'skipping cudagraphs due to mutated inputs (1 instances)'")) << Mutated;
  EXPECT_FALSE(has(Mutated, "Found from")) << Mutated;  // the stack trace is evidence, not the message
  EXPECT_TRUE(has(Mutated, "mutate a copy")) << Mutated;
  EXPECT_TRUE(has(evidence(*At[41], "torchSays"), "x.add_(1)"));
  EXPECT_TRUE(has(At[42]->Message, "move the CPU tensor to the GPU once")) << At[42]->Message;
  EXPECT_TRUE(has(At[45]->Message, "used CUDA graphs for the function called here, at a cost")) << At[45]->Message;
  EXPECT_TRUE(has(At[45]->Message, "pad inputs to a few sizes")) << At[45]->Message;
  EXPECT_EQ(findingsHeadline(F), "0 call site(s) stalled the host or serialized streams, 3 stopped CUDA graphs");
  EXPECT_EQ(findingsHeadline({}), "0 call site(s) stalled the host or serialized streams");
  EXPECT_EQ(capturesText(E.captureFigures()),
            "torch.compile(mode=\"reduce-overhead\"): 2 compiled graphs ran without CUDA graphs, 1 CUDA-graph perf "
            "hint (the findings give torch's reasons at their lines)\n");
}

TEST(CaptureNote, TorchsReasonSurvivesARecordingWithCommasTabsAndNewlines) {
  Program P;
  P.Log.Sites[6] = {"train", "/src/train.py", 41};
  const std::string Reason = "skipping cudagraphs due to multiple devices: device(type='cuda', index=0), "
                             "device(type='cuda', index=1)\n\tat 100%";
  torchSays(P, CaptureNote::Role::TorchSkip, Reason, 6);
  torchSays(P, CaptureNote::Role::TorchSkip, Reason, 6);
  std::ostringstream Out;
  writeEventLog(Out, P.Log);
  EXPECT_TRUE(has(Out.str(), "capture=torch-skip,0,?,?,0,0,0,0,-,0,skipping cudagraphs due to multiple devices:"
                             " device(type='cuda'%2C index=0)%2C device(type='cuda'%2C index=1)%0A%09at 100%25\n"))
      << Out.str();
  std::istringstream In(Out.str());
  ParseResult R = readEventLog(In);
  ASSERT_EQ(R.Error, "");
  ASSERT_NE(R.Log.Calls[0].capture(), nullptr);
  EXPECT_EQ(R.Log.Calls[0].capture()->Reason, Reason);
  Engine E;
  E.consume(R.Log);
  auto F = E.findings();
  ASSERT_EQ(F.size(), 1u);  // one line, said twice
  EXPECT_TRUE(has(F[0].Message, "(2 times)")) << F[0].Message;
  EXPECT_TRUE(has(F[0].Message, "keep every input of the compiled function on one GPU")) << F[0].Message;
  for (const char *Bad : {"capture=torch-skip,0,?,?,0,0,0,0,-,0", "capture=begin,1,2,global,1,0,0,0,-,0,why",
                          "capture=torch-hint,0,?,?,0,0,0,0,-,0,bad%2", "capture=torch-hint,0,?,?,0,0,0,0,-,0,bad%zz"}) {
    std::istringstream Line(std::string("# syncwatch-events 1\nC\t1\t1\ttorch.compile\t1\t1\t0\t") + Bad + "\n");
    EXPECT_NE(readEventLog(Line).Error.find("malformed API call record"), std::string::npos) << Bad;
  }
}
