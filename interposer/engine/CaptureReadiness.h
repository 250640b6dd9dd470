// Capture readiness of a repeated step not captured yet: every call inside the steps a
// program marks (SYNCWATCH_STEP) that would stop the step from being captured into a CUDA
// graph, with its count per step and its line, and a go/no-go verdict - "readiness.*" in the
// report's figures and one line of the summary (docs/capture-readiness.md).
//
// What stops a capture is what was measured (docs/measured-behaviour.md "Stream capture";
// cuda_api.def's Capture column): a call that waits for or queries the GPU (a synchronize, a
// synchronous copy, .item() in PyTorch), a potentially unsafe one (cudaMalloc, cudaFree,
// cudaMallocHost, cudaHostRegister), and work sent to the legacy stream (a capture is of a
// stream; the legacy one cannot be captured and breaks a blocking stream's capture). A
// pageable cudaMemcpyAsync is captured (measured), so it is not one. Another thread's such
// calls while a step runs break a global-mode capture only, and are listed apart.
//
// It sees the calls the recorder recorded: all of a step's with SYNCWATCH_MEASURE=steps, else
// those the fast path kept (the report says so). Bounded: past kMaxCalls calls it says partial.
#pragma once

#include "../events/EventLog.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

enum class Blocker : std::uint8_t { Waits, Unsafe, LegacyStream };
std::string_view blockerName(Blocker B);  // "waits for the GPU", "allocates or frees", "uses the legacy stream"

// What the catalogue says of a call (null: nothing that stops a capture). LegacyWork: the
// call's work ran on the legacy stream (its GPU record says so).
std::optional<Blocker> blockerOf(const ApiCall &C, bool LegacyWork);

class CaptureReadiness {
public:
  static constexpr std::size_t kMaxCalls = 1 << 18;

  void add(const ApiCall &C, Blocker B);
  // A cudaGraphLaunch / cuGraphLaunch: a step that makes one replays a CUDA graph.
  void addGraphLaunch(const ApiCall &C);

  // One (site, API) that stops the steps' capture.
  struct Line {
    std::uint32_t Site = 0;
    std::string_view Api;
    Blocker Kind = Blocker::Waits;
    std::uint64_t Calls = 0;      // in all the steps
    std::uint64_t StepsWith = 0;  // the steps it was in
    bool OtherThread = false;     // another thread's, while a step ran
  };
  struct Verdict {
    std::string Step;  // the steps' name
    std::uint64_t Thread = 0;
    std::size_t Steps = 0;   // judged (after the warm-up)
    std::size_t WarmUp = 0;  // steps left out at the start
    std::vector<Line> Lines;  // most calls first; the step's own thread first
    bool Partial = false;
    // The steps are a loop found in the calls (LoopSteps.h), not marked: a step runs from one
    // call to its next, so what the program does between iterations (a .item() every 50
    // steps) falls inside one. A blocker in at most 1 of 10 such steps is occasional: it
    // may well run between graph replays. Listed apart; it does not make the verdict no-go.
    bool Detected = false;
    bool occasional(const Line &L) const { return Detected && !L.OtherThread && L.StepsWith * 10 <= Steps; }
    // The same steps run both ways: those that launched a CUDA graph (replays) and those that
    // did not (eager), each with its median host time from mark to mark - what capturing the
    // step saved in launches, measured against the same work uncaptured. Both at least
    // kMinEach steps, else none.
    static constexpr std::size_t kMinEach = 3;
    std::size_t ReplaySteps = 0, EagerSteps = 0;
    std::uint64_t ReplayMedianNs = 0, EagerMedianNs = 0;
    bool go() const;
  };
  // The steps of the most frequent (name, thread), judged; none without steps. The first
  // of three or more steps is warm-up (a capture follows warm-up: PyTorch's caching
  // allocator and cuBLAS allocate in it) and is not judged. CurrentStreamWork, if given:
  // legacy-stream work from this site went to PyTorch's current stream, which
  // torch.cuda.graph replaces by its capture stream - not a blocker there.
  // SameLine, if given: the site that stands for every site shown as the same line (one line
  // reached by two call stacks - PyTorch's profiler adds frames of its own in the steps it
  // records - is one blocker, not two).
  std::optional<Verdict> judge(const std::vector<StepSpan> &Steps,
                               const std::function<bool(std::uint32_t Site, std::uint64_t Thread)> &CurrentStreamWork = {},
                               const std::function<std::uint32_t(std::uint32_t Site)> &SameLine = {}) const;
  std::vector<std::uint32_t> sites() const;  // of the calls kept (to symbolize)

private:
  struct Kept {
    std::uint64_t Thread, Enter;
    std::uint32_t Site;
    std::string_view Api;
    Blocker Kind;
  };
  std::vector<Kept> Calls;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> GraphLaunches;  // (thread, enter)
  bool Partial = false;
};

// readiness.step, .steps, .thread, .verdict (go / no-go), .blockersPerStep, .blockers (the
// lines, own thread's), .otherThreads, .partial; with replays and eager steps both,
// .replayedSteps, .replayStepUs, .eagerSteps, .eagerStepUs, .launchTimeSavedUs (a step). SiteText and Label name sites and threads.
std::vector<std::pair<std::string, std::string>>
readinessFigures(const CaptureReadiness::Verdict &V, const std::function<std::string(std::uint32_t)> &SiteText,
                 const std::function<std::string(std::uint64_t)> &Label);
// The summary's line ("" without readiness figures).
std::string readinessText(const std::vector<std::pair<std::string, std::string>> &Figures);

} // namespace syncwatch::runtime
