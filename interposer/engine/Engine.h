// The runtime engine: turns an event stream into Findings with the analyzer's rule ids.
// No CUDA, no CUPTI: it runs in CI on recorded streams. It is incremental - capture feeds it
// bounded windows of events and it keeps only per-site aggregates - so memory stays bounded
// on long runs.
#pragma once

#include "../events/EventLog.h"
#include "StepCosts.h"

#include "syncwatch/finding.h"
#include "syncwatch/report.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace syncwatch::runtime {

struct EngineConfig {
  std::uint64_t HostWaitThresholdNs = 1'000'000;  // SYNCWATCH_THRESHOLD_MS, default 1 ms
  // GPU work that ends this close before a call returns is what the call waited for, and
  // work that starts this close after another stream's work ended was held by it.
  std::uint64_t SlackNs = 10'000;
  // A call waited for GPU work when that work ended at most this long before it returned
  // (cudaFree unmaps memory for a few hundred microseconds after the device went idle).
  std::uint64_t WaitSlackNs = 1'000'000;
  // Work that starts less than this after it was issued was not held.
  std::uint64_t MinHeldNs = 20'000;
  // A site whose every occurrence waited for its own work only is a warning when it ran
  // more than once (a hot path) or took at least this share of the run; else a note.
  double HotShare = 0.05;
  // CUPTI hands a call's activity records over this long after the call at the latest
  // (flushed every 100 ms, buffers of 1 MiB): a windowed call whose records are not in yet
  // is kept waiting for them this long (EventWindow).
  std::uint64_t RecordLagNs = 1'000'000'000;
};

// One call site's record for one rule: what syncwatch reports.
struct SiteAggregate {
  RuleId Rule;
  std::uint32_t Site = 0;
  std::string Api;
  std::uint64_t Count = 0, TotalNs = 0, MaxNs = 0;
  std::string Example;   // the cause of the longest occurrence
  // Copies that the same thread followed at once with a synchronization (PyTorch's
  // blocking .to("cpu"): a cudaMemcpyAsync then a cudaStreamSynchronize).
  std::uint64_t FollowedBySync = 0;
  std::string SyncApi;
  // Occurrences that waited for nothing but their own GPU work (a synchronous cudaMemcpy
  // of its own 16 MB): the cost of a synchronous API, not an implicit synchronization.
  std::uint64_t OwnWorkOnly = 0;
  // syncwatch-torch-current-stream (launches onto a default stream while PyTorch's current
  // stream was another): those whose kernel overlapped work queued on the current stream -
  // a race seen, not only possible - and the CUPTI ids of that stream and of the one the
  // kernels went to.
  std::uint64_t Unordered = 0;
  std::optional<std::uint32_t> CurrentStream, LaunchStream;
  // The cost by the thread that paid it (thread id): `syncwatch gate`'s allowlist scopes a
  // site by thread (a loader thread's pinned copies, not the training thread's).
  std::map<std::uint64_t, std::uint64_t> NsByThread;
};

// One judged occurrence (before aggregation), for the trace: the call, the GPU work it
// waited for or was held by (if known), and what it cost.
struct Occurrence {
  RuleId Rule;
  const ApiCall *Call = nullptr;
  const GpuWork *Waited = nullptr;
  std::uint64_t CostNs = 0;
  const std::string *Cause = nullptr;
};

class Engine {
public:
  explicit Engine(EngineConfig Config = {}) : Config(Config) {}

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

  // The steps the program marked (SYNCWATCH_STEP) and what each lost: "steps.*" figures.
  // trackSteps(): steps are expected (the recorder, before the first step has ended), so
  // judged waits are kept for them from the start.
  void trackSteps() { StepCost.track(); }
  const StepCosts &steps() const { return StepCost; }
  std::vector<std::pair<std::string, std::string>> stepFigures() const;

  // The aggregates of one (rule, source location), summed in Total.
  struct MergedSite {
    SiteAggregate Total;
    std::vector<const SiteAggregate *> Parts;  // costliest first
  };

private:
  std::string locationKey(std::uint32_t Site, RuleId Rule) const;
  const std::vector<MergedSite> &merged() const;  // cached until the next consume()
  SiteAggregate &record(RuleId Rule, const ApiCall &Call, std::uint64_t Cost, const std::string &Cause,
                        const GpuWork *Waited = nullptr, bool OwnWorkOnly = false);
  SiteAggregate &recordHostWait(RuleId Rule, const ApiCall &Call, const std::string &Cause,
                                const GpuWork *Waited = nullptr, bool OwnWorkOnly = false);
  struct WindowIndex;  // one window's lookups, built once per window in consume()
  void hostWaits(const EventLog &W, const WindowIndex &I);
  bool launchedOntoHighPriority(const ApiCall &C, const WindowIndex &I) const;
  void pageableCopies(const EventLog &W, const WindowIndex &I);
  void serialization(const EventLog &W, const WindowIndex &I);
  void priorityInversion(const EventLog &W, const WindowIndex &I);
  void offTorchStream(const EventLog &W, const WindowIndex &I);
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
  struct CallCount {
    std::uint64_t Count = 0, TotalNs = 0, MaxNs = 0;
    // Of Count: the calls whose cost the rules could judge (a launch before kernel records
    // existed, or counted untraced by the fast path, was not).
    std::uint64_t Measured = 0;
  };
  bool CountsAllCalls = false;
  std::vector<UnwatchedSpan> LaunchesUnwatched;
  std::map<std::pair<std::string_view, std::uint32_t>, CallCount> CallCounts;  // (API, site)
  std::uint64_t CallsSeen = 0;
  std::uint64_t FirstEnter = UINT64_MAX, LastExit = 0;
  std::uint64_t KernelsTracedFrom = 0;
  std::function<void(const Occurrence &)> Observer;
  StepCosts StepCost;
  mutable std::vector<MergedSite> Merged;
  mutable std::set<std::tuple<RuleId, std::uint32_t>> ReportedSites;
  mutable bool MergedValid = false;
};

using syncwatch::formatDuration;  // report.h: every report says times alike

} // namespace syncwatch::runtime
