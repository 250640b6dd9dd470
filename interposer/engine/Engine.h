// The runtime engine: turns an event stream into Findings with the analyzer's rule ids.
// No CUDA, no CUPTI: it runs in CI on recorded streams. It is incremental - capture feeds it
// bounded windows of events and it keeps only per-site aggregates - so memory stays bounded
// on long runs. The rules' judgement is in the passes (../passes/, one per row of
// rules/runtime_passes.def): the engine runs them over each window, keeps what they record
// (it is their FindingSink), and turns the aggregates into findings.
#pragma once

#include "CaptureReadiness.h"
#include "LoopSteps.h"
#include "StepCosts.h"

#include "../events/EventLog.h"
#include "../passes/EngineConfig.h"
#include "../passes/SiteAggregate.h"
#include "../passes/WindowPass.h"

#include "syncwatch/finding.h"
#include "syncwatch/report.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace syncwatch::runtime {

struct UtilizationFigures;  // Utilization.h

// One judged occurrence (before aggregation), for the trace: the call, the GPU work it
// waited for or was held by (if known), and what it cost.
struct Occurrence {
  RuleId Rule;
  const ApiCall *Call = nullptr;
  const GpuWork *Waited = nullptr;
  std::uint64_t CostNs = 0;
  const std::string *Cause = nullptr;
};

class Engine final : private FindingSink {
public:
  explicit Engine(EngineConfig Config = {}) : Config(Config) {}
  // Calls were timed at their entry points without CUPTI (EngineConfig::SeenWithoutCupti).
  void seenWithoutCupti() { Config.SeenWithoutCupti = true; }

  // Analyzes a window of events. Only the first InScope calls are judged (and the GPU
  // work they issued); the rest of the window is context that will be judged with the
  // next window (see EventWindow). Call sites and stream flags accumulate across windows.
  void consume(const EventLog &Window, std::size_t InScope = SIZE_MAX);

  // Findings aggregated per (rule, call site), longest total first: stacks that end at the
  // same source line are one finding, their shares in its evidence ("variants"). Explicit
  // synchronizations are reported only when a site waited more than once (in a loop).
  std::vector<Finding> findings() const;
  const std::map<std::tuple<RuleId, std::uint32_t>, SiteAggregate> &aggregates() const {
    return Aggregates;
  }
  std::uint64_t callsSeen() const { return CallsSeen; }
  // From the first call's entry to the last call's exit.
  std::uint64_t runNs() const { return LastExit > FirstEnter ? LastExit - FirstEnter : 0; }
  // Kernel records exist from this time on (0: all traced; UINT64_MAX: none).
  std::uint64_t kernelsTracedFrom() const { return KernelsTracedFrom; }
  // Whether findings() reports this (rule, call site).
  bool reported(RuleId Rule, std::uint32_t Site) const;
  // Host time of everything findings() reports.
  std::uint64_t hostTimeLostNs() const;
  // Called for every occurrence as it is judged (SYNCWATCH_TRACE draws them).
  void onOccurrence(std::function<void(const Occurrence &)> F) { Observer = std::move(F); }
  const std::map<std::uint32_t, StreamInfo> &streams() const { return Streams; }
  // Every call that had a site, fast ones included, per (API, source location): the run's
  // coverage (syncwatch confirm). Sites must have been consumed (symbolized) first.
  std::vector<CoveredCall> coverage() const;
  // The sites coverage() needs symbolized.
  std::vector<std::uint32_t> coverageSites() const;
  // Calls the fast path counted without recording them (the recorder at exit; a
  // recording's N records come through consume()).
  void addCounted(const CountedCalls &C);
  // How much of the run's launches the coverage holds: every one (the recorder counted all
  // and launch callbacks were never off), some (they were off for a while: a launch line
  // missing from coverage may have run then), or unknown (an older recording).
  enum class LaunchCoverage { Unknown, Complete, Partial };
  LaunchCoverage launchCoverage() const;
  // The run-wide figures that say it: "coverage.launches", "coverage.launchesUnwatchedMs".
  std::vector<std::pair<std::string, std::string>> coverageFigures() const;
  // Every figure of a report, in one order for the library, `replay` and the join: the
  // utilization (from Use), then coverage, steps, captures and readiness.
  std::vector<std::pair<std::string, std::string>> reportFigures(const UtilizationFigures &Use) const;
  // The graph captures that ended: "captures.ended", "captures.failed", "captures.graphNodes"
  // (the nodes of the graphs made); none when no capture ended.
  std::vector<std::pair<std::string, std::string>> captureFigures() const;

  // The steps the program marked (SYNCWATCH_STEP) and what each lost: "steps.*" figures.
  // trackSteps(): steps are expected (the recorder, before the first step has ended), so
  // judged waits are kept for them from the start.
  void trackSteps() { StepCost.track(); }
  // The loop the calls repeat is the step of capture readiness, marks or not (LoopSteps.h;
  // SYNCWATCH_STEP=@loop, replay --steps loop).
  void detectLoops() { DetectLoops = true; }
  const StepCosts &steps() const { return StepCost; }
  std::vector<std::pair<std::string, std::string>> stepFigures() const;
  // Capture readiness of the marked steps (CaptureReadiness.h): readiness.*; none without
  // steps. Sites must have been consumed (symbolized) first: readinessSites().
  std::vector<std::pair<std::string, std::string>> readinessFigures() const;
  std::vector<std::uint32_t> readinessSites() const;
  std::optional<LoopSteps::Loop> findLoop() const;

  // The aggregates of one (rule, source location), summed in Total.
  struct MergedSite {
    SiteAggregate Total;
    std::vector<const SiteAggregate *> Parts;  // costliest first
  };

private:
  std::string locationKey(std::uint32_t Site, RuleId Rule) const;
  const std::vector<MergedSite> &merged() const;  // cached until the next consume()
  // FindingSink: what the passes judged.
  SiteAggregate &record(RuleId Rule, const ApiCall &Call, std::uint64_t Cost, const std::string &Cause,
                        const GpuWork *Waited, bool OwnWorkOnly) override;
  SiteAggregate &recordHostWait(RuleId Rule, const ApiCall &Call, const std::string &Cause, const GpuWork *Waited,
                                bool OwnWorkOnly) override;
  const SiteAggregate *aggregate(RuleId Rule, std::uint32_t Site) const override;
  // The rule a site's aggregate is reported under: a host wait whose native frame is a
  // Python process's C++ extension is syncwatch-torch-host-sync (a sync inside an op).
  RuleId reportedRule(const SiteAggregate &A) const;

  EngineConfig Config;
  std::map<std::tuple<RuleId, std::uint32_t>, SiteAggregate> Aggregates;
  std::map<std::uint32_t, SiteFrame> Sites;
  std::map<std::uint32_t, StreamInfo> Streams;
  std::map<std::uint64_t, std::string> ThreadNames;  // H records
  std::uint64_t MainThread = 0;                      // the pid: the main thread's id
  std::string threadLabel(std::uint64_t Tid) const;  // "main", "<name> (tid N)", "tid N"
  std::string threadCosts(const std::map<std::uint64_t, std::uint64_t> &NsByThread) const;
  // A site as a user reads it: the innermost user Python line, else file:line, else
  // module!function ("" when unknown).
  std::string siteText(std::uint32_t Site) const;
  // syncwatch-capture-breaking-call's message and evidence: the capture that was broken,
  // where and by which thread it was begun, and by which thread it was broken.
  std::string captureBreakMessage(const SiteAggregate &A) const;
  // The same rule's finding from torch.compile's own reason (CaptureNote::Role::Torch*).
  std::string torchGraphMessage(const CaptureNote &N, std::uint64_t Count, const std::string &Reason) const;
  void addCaptureEvidence(Finding &F, const SiteAggregate &A) const;
  struct CallCount {
    std::uint64_t Count = 0, TotalNs = 0, MaxNs = 0;
    // Of Count: the calls whose cost the rules could judge (a launch before kernel records
    // existed, or counted untraced by the fast path, was not).
    std::uint64_t Measured = 0;
  };
  bool CountsAllCalls = false;
  std::vector<UnwatchedSpan> LaunchesUnwatched;
  // Graph captures that ended (their end's CaptureNote): how many, how many made no graph,
  // and the nodes of those that did (coverageFigures' captures.*).
  std::uint64_t CapturesEnded = 0, CapturesFailed = 0, CaptureNodes = 0;
  std::uint64_t TorchSkips = 0, TorchHints = 0;  // torch.compile's notes (CaptureNote::Role::Torch*)
  std::map<std::pair<std::string_view, std::uint32_t>, CallCount> CallCounts;  // (API, site)
  std::uint64_t CallsSeen = 0;
  std::uint64_t FirstEnter = UINT64_MAX, LastExit = 0;
  std::uint64_t KernelsTracedFrom = 0;
  std::function<void(const Occurrence &)> Observer;
  StepCosts StepCost;
  LoopSteps Loops;
  bool DetectLoops = false;
  CaptureReadiness Readiness;
  mutable std::vector<MergedSite> Merged;
  mutable std::set<std::tuple<RuleId, std::uint32_t>> ReportedSites;
  mutable bool MergedValid = false;
};

using syncwatch::formatDuration;  // report.h: every report says times alike

// The run's graph captures in one line ("" when none ended), from coverageFigures' captures.*:
// "3 graph captures ended: 1 failed (the findings say where); the 2 graphs made have 412 nodes".
std::string capturesText(const std::vector<std::pair<std::string, std::string>> &Figures);
// A report's first words: "6 call site(s) stalled the host or serialized streams", with the
// sites that stopped CUDA graphs said apart ("..., 2 stopped CUDA graphs"): those cost no time
// of their own.
std::string findingsHeadline(const std::vector<Finding> &Findings);

} // namespace syncwatch::runtime
