// The steps a program marks (SYNCWATCH_STEP: an NVTX range of that name, pushed and popped
// or started and ended on one thread) and the host time each lost to the waits the engine
// judged: "steps.*" in the report's figures, and what `syncwatch gate --budget-ms-per-step`
// holds. A wait counts for a step when the step's thread entered it inside the step.
// Bounded: past kMaxSteps steps or kMaxWaits judged waits, the figures say steps.partial.
#pragma once

#include "../events/EventLog.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

class StepCosts {
public:
  static constexpr std::size_t kMaxSteps = 1 << 17, kMaxWaits = 1 << 18;

  void addStep(const StepSpan &S);
  // A judged wait of Cost ns, entered at Enter on Thread. Kept only once steps are marked
  // or expected (track()): a run without steps keeps nothing.
  void addWait(std::uint64_t Thread, std::uint64_t Enter, std::uint64_t Cost);
  void track() { Tracking = true; }
  bool tracking() const { return Tracking; }

  struct Cost {
    std::size_t Index = 0;  // 1-based, in the order the steps started
    StepSpan Span;
    std::uint64_t BlockedNs = 0;
    std::uint64_t Waits = 0;
  };
  // Every step with what it lost, in the order they started.
  std::vector<Cost> costs() const;
  // steps.name, .count, .blockedTotalMs, .blockedMeanMs, .blockedWorstMs, .worst, .worstIndex
  // (and .partial); none when no step was marked. RunStart: the first call's entry, from
  // which "s into the run" counts. Label names a thread as the report does.
  std::vector<std::pair<std::string, std::string>>
  figures(std::uint64_t RunStart, const std::function<std::string(std::uint64_t)> &Label) const;

private:
  struct Wait {
    std::uint64_t Thread, Enter, Cost;
  };
  std::vector<StepSpan> Steps;
  std::vector<Wait> Waits;
  bool Tracking = false, Partial = false;
};

// The summary's line for a report's figures, figures()'s among them ("500 'train_step' steps: the worst, #17 of 500 (...),
// blocked 12.3 ms; the mean 3.1 ms\n"); "" without steps.
std::string stepsText(const std::vector<std::pair<std::string, std::string>> &Figures);

} // namespace syncwatch::runtime
