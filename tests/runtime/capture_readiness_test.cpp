// Capture readiness of marked steps (engine/CaptureReadiness.h) on hand-built recordings: a
// training step whose calls would stop a CUDA graph capture - a .item() (a copy and a
// synchronize), an allocation in some steps, a legacy-stream kernel - listed per step and
// line, another thread's allocation apart, and a clean step that is a go. The first step is
// warm-up, and a PyTorch op's launch onto torch's current stream (the legacy default stream,
// from a Python line) is what torch.cuda.graph captures on its own stream: neither is judged.
#include "../../interposer/engine/Engine.h"

#include <gtest/gtest.h>

#include <map>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {

constexpr std::uint64_t us = 1000;
constexpr std::uint64_t Main = 500, Loader = 501;
using Figures = std::vector<std::pair<std::string, std::string>>;

struct Recorded {
  EventLog Log;
  std::uint32_t Corr = 0;
  Recorded() {
    Log.Process.Pid = Main;
    Log.ThreadNames[Loader] = "loader";
    Log.Streams = {{7, StreamFlag::Legacy, 0}, {13, StreamFlag::NonBlocking, 0}};
    SiteFrame Item{{"forward", "/src/ext.cu", 88}, {{"train_step", "/src/train.py", 40}}};
    Log.Sites[1] = Item;                              // loss.item(): the copy and the sync
    Log.Sites[2] = {"alloc_scratch", "/src/ext.cu", 120};
    Log.Sites[3] = {"normalize", "/src/ext.cu", 61};  // a kernel launched without a stream
    Log.Sites[4] = {"matmul", "/src/ext.cu", 30};     // a kernel on the step's stream
    Log.Sites[5] = {"pin_batch", "/src/loader.cu", 17};
    // A PyTorch op launched from Python onto torch's current stream - the default, legacy one.
    Log.Sites[6] = SiteFrame{{"gemm", "libtorch_cuda.so", 0}, {{"train_step", "/src/train.py", 38}}};
  }
  std::uint64_t call(const char *Api, std::uint64_t At, std::uint32_t Site, std::uint64_t Thread = Main) {
    Log.Calls.push_back({++Corr, 0, Thread, internApiName(Api), At * us, (At + 5) * us, Site});
    return Corr;
  }
  void kernelOn(std::uint32_t Stream, std::uint64_t Corr, std::uint64_t At) {
    GpuWork K;
    K.Correlation = static_cast<std::uint32_t>(Corr);
    K.Stream = Stream;
    K.Start = (At + 10) * us;
    K.End = (At + 20) * us;
    K.Name = "k";
    Log.Work.push_back(K);
  }
  void step(std::uint64_t From, std::uint64_t To) { Log.Steps.push_back({Main, From * us, To * us, "train_step"}); }
  std::map<std::string, std::string> figures() {
    Engine E;
    E.consume(Log);
    auto F = E.readinessFigures();
    return {F.begin(), F.end()};
  }
};

} // namespace

TEST(CaptureReadiness, ATrainingStepsBlockersPerStepAndLine) {
  Recorded R;
  for (int S = 0; S < 5; ++S) {
    std::uint64_t T = 1000 * (S + 1);
    R.step(T, T + 900);
    R.kernelOn(13, R.call("cudaLaunchKernel", T + 10, 4), T + 10);
    R.kernelOn(7, R.call("cudaLaunchKernel", T + 100, 3), T + 100);  // legacy stream
    R.kernelOn(7, R.call("cudaLaunchKernel", T + 150, 6), T + 150);  // torch's current stream
    R.call("cudaMemcpyAsync", T + 200, 1);                            // .item()'s copy: captured
    R.call("cudaStreamSynchronize", T + 210, 1);                      // .item()'s wait: a blocker
    if (S == 0)
      R.call("cudaHostAlloc", T + 250, 2);  // warm-up: the first step allocates, not judged
    if (S == 1)
      R.call("cudaMalloc", T + 300, 2);  // one judged step's allocation
    if (S == 3)
      R.call("cudaMallocHost", T + 400, 5, Loader);  // the loader pins while a step runs
  }
  R.call("cudaDeviceSynchronize", 9000, 1);  // after the last step: not in one
  auto F = R.figures();
  EXPECT_EQ(F["readiness.step"], "train_step");
  EXPECT_EQ(F["readiness.steps"], "4");
  EXPECT_EQ(F["readiness.warmUpSteps"], "1");
  EXPECT_EQ(F["readiness.thread"], "main");
  EXPECT_EQ(F["readiness.verdict"], "no-go");
  EXPECT_EQ(F["readiness.blockersPerStep"], "2.25");
  EXPECT_EQ(F["readiness.blockers"],
            "1 x cudaStreamSynchronize at /src/train.py:40 (in forward at /src/ext.cu:88) (waits for the GPU; every step); "
            "1 x cudaLaunchKernel at /src/ext.cu:61 (runs on the legacy stream; every step); "
            "0.25 x cudaMalloc at /src/ext.cu:120 (allocates, frees or pins; in 1 of 4 steps)");
  EXPECT_EQ(F["readiness.otherThreads"],
            "0.25 x cudaMallocHost at /src/loader.cu:17 (allocates, frees or pins; in 1 of 4 steps) on another thread");
  std::string Text = readinessText(Figures(F.begin(), F.end()));
  EXPECT_NE(Text.find("capture readiness of the 4 'train_step' steps on thread main (after 1 warm-up): no-go - 2.25 "
                      "blocker(s) a step"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("other threads made calls that break a global-mode capture"), std::string::npos) << Text;
}

TEST(CaptureReadiness, AStepWithOnlyCapturableWorkIsAGo) {
  Recorded R;
  for (int S = 0; S < 4; ++S) {
    std::uint64_t T = 1000 * (S + 1);
    R.step(T, T + 900);
    R.kernelOn(13, R.call("cudaLaunchKernel", T + 10, 4), T + 10);
    R.kernelOn(7, R.call("cudaLaunchKernel", T + 15, 6), T + 15);  // torch's current stream
    R.call("cudaMemcpyAsync", T + 20, 1);      // a pageable copy is captured (measured)
    R.call("cudaMallocAsync", T + 30, 2);      // stream-ordered: captured
    R.call("cudaEventRecord", T + 40, 4);
  }
  R.call("cudaMalloc", 10, 2);                 // set-up before the first step
  R.call("cudaStreamSynchronize", 6000, 1);    // after the last
  auto F = R.figures();
  EXPECT_EQ(F["readiness.verdict"], "go");
  EXPECT_EQ(F["readiness.blockersPerStep"], "0");
  EXPECT_EQ(F.count("readiness.blockers"), 0u);
  EXPECT_EQ(readinessText(Figures(F.begin(), F.end())),
            "capture readiness of the 3 'train_step' steps on thread main (after 1 warm-up): go - none of their calls "
            "would stop a CUDA graph capture\n");
}

TEST(CaptureReadiness, NoStepsNoReadinessAndTheMostFrequentStepIsJudged) {
  Recorded R;
  R.call("cudaStreamSynchronize", 100, 1);
  EXPECT_TRUE(R.figures().empty());
  EXPECT_EQ(readinessText({}), "");
  // Steps of two names: the one that repeats most is the loop a capture would replace.
  Recorded Two;
  Two.Log.Steps.push_back({Main, 10 * us, 900 * us, "setup"});
  for (int S = 0; S < 3; ++S)
    Two.step(1000 * (S + 1), 1000 * (S + 1) + 900);
  Two.call("cudaMalloc", 20, 2);  // in the set-up step only
  auto F = Two.figures();
  EXPECT_EQ(F["readiness.step"], "train_step");
  EXPECT_EQ(F["readiness.verdict"], "go");
}

TEST(CaptureReadiness, CallsOfACaptureTheProgramMadeAreNotBlockers) {
  Recorded R;
  R.step(1000, 1900);
  std::uint64_t C = R.call("cudaStreamSynchronize", 1100, 1);
  CaptureNote N;
  N.What = CaptureNote::Role::Breaks;
  N.Error = 900;
  N.Thread = Main;
  R.Log.Calls[C - 1].CaptureNumber = internCaptureNote(N);
  EXPECT_EQ(R.figures()["readiness.verdict"], "go");  // the Capture pass reports it
}

// Steps without marks (engine/LoopSteps.h, SYNCWATCH_STEP=@loop): the loop the main thread
// repeats - a matmul launch, a .item() every iteration, a logging sync every 10th, an
// allocation in warm-up only - found in the calls, each step from one matmul to the next.
// Another thread that launches more a step (autograd's) is not the step's thread; a call made
// twice an iteration is not the step's start.
namespace {

std::map<std::string, std::string> loopFigures(Recorded &R) {
  Engine E;
  E.detectLoops();
  E.consume(R.Log);
  auto F = E.readinessFigures();
  return {F.begin(), F.end()};
}

void trainingLoop(Recorded &R, int Iterations, bool ItemEachStep) {
  std::uint64_t T = 100;
  R.call("cudaMalloc", T, 2);  // set-up, before the loop
  for (int I = 0; I < Iterations; ++I, T += 100) {
    std::uint64_t K = R.call("cudaLaunchKernel", T, 4);
    R.kernelOn(13, K, T);
    R.call("cudaLaunchKernel", T + 10, 6);  // twice an iteration: uneven gaps
    R.kernelOn(13, R.Corr, T + 10);
    for (int B = 0; B < 3; ++B)  // the backward pass's launches, on autograd's thread
      R.kernelOn(13, R.call("cudaLaunchKernel", T + 20 + B, 4, Loader), T + 20 + B);
    R.call("cudaLaunchKernel", T + 30, 6);
    R.kernelOn(13, R.Corr, T + 30);
    if (ItemEachStep) {
      R.call("cudaMemcpyAsync", T + 40, 1);
      R.call("cudaStreamSynchronize", T + 45, 1);
    }
    if (I % 10 == 9)
      R.call("cudaDeviceSynchronize", T + 60, 5);  // logging, every 10th iteration
  }
}

} // namespace

TEST(LoopSteps, TheMainThreadsLoopIsTheStepAndItsWaitsAreBlockers) {
  Recorded R;
  trainingLoop(R, 30, true);
  auto F = loopFigures(R);
  EXPECT_EQ(F["readiness.thread"], "main");
  EXPECT_EQ(F["readiness.step"], "loop from cudaLaunchKernel at /src/ext.cu:30");
  EXPECT_EQ(F["readiness.loopCallsPerStep"], "5");
  EXPECT_EQ(F["readiness.steps"], "28");  // 29 from one matmul to the next, the first warm-up
  EXPECT_EQ(F["readiness.verdict"], "no-go");
  EXPECT_NE(F["readiness.blockers"].find("1 x cudaStreamSynchronize at /src/train.py:40"), std::string::npos)
      << F["readiness.blockers"];
  EXPECT_EQ(F["readiness.blockers"].find("cudaMalloc"), std::string::npos);  // before the loop
  EXPECT_NE(F["readiness.occasional"].find("cudaDeviceSynchronize"), std::string::npos) << F["readiness.occasional"];
}

TEST(LoopSteps, AnOccasionalSyncBetweenIterationsLeavesTheLoopAGo) {
  Recorded R;
  trainingLoop(R, 30, false);
  auto F = loopFigures(R);
  EXPECT_EQ(F["readiness.verdict"], "go") << F["readiness.blockers"];
  EXPECT_NE(F["readiness.occasional"].find("in 2 of 28 steps"), std::string::npos) << F["readiness.occasional"];
}

TEST(LoopSteps, NoLoopNoVerdict) {
  Recorded R;
  trainingLoop(R, 3, true);  // 2 steps from one matmul to the next: too few to be a loop
  EXPECT_FALSE(loopFigures(R).count("readiness.verdict"));
  Recorded Marked;  // marked steps are the steps, unless the loop is asked for
  trainingLoop(Marked, 30, true);
  Marked.step(100, 190);
  Marked.step(200, 290);
  Marked.step(300, 390);
  EXPECT_EQ(Marked.figures()["readiness.step"], "train_step");
  auto F = loopFigures(Marked);
  EXPECT_EQ(F["readiness.loopCallsPerStep"], "5");
}

// The same step run uncaptured, then captured and replayed under the same mark: the launch time
// capturing saved a step, from the steps' own host times (medians), and the replays' graph
// launches are no blockers. With fewer than three of either kind, nothing is said.
TEST(CaptureReadiness, ReplayedStepsAgainstTheSameStepUncaptured) {
  Recorded R;
  std::uint64_t T = 1000;
  for (int S = 0; S < 6; ++S, T += 1000) {  // eager: 8 launches, 400 us of host time
    R.step(T, T + 400);
    for (int K = 0; K < 8; ++K)
      R.kernelOn(13, R.call("cudaLaunchKernel", T + 10 + 40 * K, 4), T + 10 + 40 * K);
  }
  R.call("cudaStreamBeginCapture", T, 4);
  R.call("cudaStreamEndCapture", T + 300, 4);
  R.call("cudaGraphInstantiate", T + 400, 4);
  T += 1000;
  for (int S = 0; S < 5; ++S, T += 1000) {  // replays: one graph launch, 30 us
    R.step(T, T + 30);
    R.call("cudaGraphLaunch", T + 5, 4);
  }
  auto F = R.figures();
  EXPECT_EQ(F["readiness.steps"], "10");  // 11 marked, the first is warm-up
  EXPECT_EQ(F["readiness.verdict"], "go");
  EXPECT_EQ(F["readiness.replayedSteps"], "5");
  EXPECT_EQ(F["readiness.eagerSteps"], "5");
  EXPECT_EQ(F["readiness.replayStepUs"], "30.0");
  EXPECT_EQ(F["readiness.eagerStepUs"], "400.0");
  EXPECT_EQ(F["readiness.launchTimeSavedUs"], "370.0");
  std::string Text = readinessText(Figures(F.begin(), F.end()));
  EXPECT_NE(Text.find("5 of the steps replayed a CUDA graph: 30.0 us a step (median) against 400.0 us for the 5 that "
                      "ran the step uncaptured - 370.0 us saved a step, 13.3x"),
            std::string::npos)
      << Text;

  Recorded Few;  // two replays only: no comparison
  T = 1000;
  for (int S = 0; S < 6; ++S, T += 1000) {
    Few.step(T, T + (S < 4 ? 400 : 30));
    Few.call(S < 4 ? "cudaLaunchKernel" : "cudaGraphLaunch", T + 5, 4);
  }
  auto G = Few.figures();
  EXPECT_EQ(G["readiness.steps"], "5");
  EXPECT_EQ(G.count("readiness.replayedSteps"), 0u);
}
