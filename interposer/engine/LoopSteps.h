// Steps without marks: the loop a program repeats, found in its calls (SYNCWATCH_STEP=@loop,
// `syncwatch replay --steps loop`), for capture readiness (CaptureReadiness.h) where the
// program has no NVTX range to mark a step.
//
// A step is what lies between one call of a (site, API) and its next call, for the (site,
// API) that repeats most regularly on the step's thread: its gaps (calls in between) are
// within a tenth of their median, over the most calls. Every gap between half and one and a
// half times the median is then a step (an iteration that also logged is one). A call made once per iteration of the
// loop - its first launch, its optimizer's - has one gap per iteration, all alike; a call
// made twice an iteration, or every tenth (a .item() for logging), has uneven gaps or covers
// less of the run. Of equally regular ones, the longer gap wins (a whole iteration, not
// half), then the first to occur (the iteration's first call starts the step).
// It needs every call recorded (SYNCWATCH_MEASURE=all): the fast path's filter leaves out
// calls unevenly. Bounded: the first kMaxCalls calls.
#pragma once

#include "../events/EventLog.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace syncwatch::runtime {

class LoopSteps {
public:
  static constexpr std::size_t kMaxCalls = 1 << 17;

  void add(const ApiCall &C);

  struct Loop {
    std::uint32_t Site = 0;   // the call that starts each step
    std::string_view Api;
    std::uint64_t Thread = 0;
    std::size_t CallsPerStep = 0;  // the median gap
    std::vector<StepSpan> Steps;   // named by Name(Site)
  };
  // The loop, or none (fewer than 3 steps found): on the Preferred thread (the process's
  // main thread: the one that drives a step; PyTorch's autograd thread launches more calls
  // a step, but only what main asks of it), else on the busiest one. Name: the step's name
  // from its first call's site ("loop from cudaMemsetAsync at train.py:40").
  std::optional<Loop> find(const std::function<std::string(std::uint32_t Site, std::string_view Api)> &Name,
                           std::uint64_t Preferred = 0) const;
  bool partial() const { return Partial; }

private:
  std::optional<Loop> findOn(std::uint64_t Thread,
                             const std::function<std::string(std::uint32_t Site, std::string_view Api)> &Name) const;
  struct Call {
    std::uint64_t Thread, Enter;
    std::uint32_t Site;
    std::string_view Api;
  };
  std::vector<Call> Calls;
  bool Partial = false;
};

} // namespace syncwatch::runtime
