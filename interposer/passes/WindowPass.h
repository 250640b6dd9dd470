// The runtime half's rule interface: one pass over a window of events, one class per pass
// (rules/runtime_passes.def lists them; rules.def's Runtime column says which pass reports a
// rule). A pass reads the window and what the engine keeps across windows, judges, and
// writes what it judged through the sink; it keeps no state of its own, so the engine's
// aggregates are the run's whole memory (bounded per call site, not per call).
#pragma once

#include "EngineConfig.h"
#include "SiteAggregate.h"
#include "WindowIndex.h"

#include "../events/EventLog.h"

#include "syncwatch/report.h"  // formatDuration: every cause says times alike

#include <cstdint>
#include <map>
#include <string>

namespace syncwatch::runtime {

// What a pass reads: the window (its first Index.InScope calls are judged now, the rest are
// context), its lookups, the streams seen so far, and the settings.
struct PassContext {
  const EventLog &Window;
  const WindowIndex &Index;
  const std::map<std::uint32_t, StreamInfo> &Streams;
  const EngineConfig &Config;
  std::uint64_t KernelsTracedFrom;  // kernel records exist from this time on (0: all traced)
};

// Where a pass writes: one judged occurrence of a rule at a call, with its cost and cause
// (and the GPU work it waited for or was held by). The returned aggregate is the call site's
// record for the rule, for the pass's own fields (SiteAggregate.h).
class FindingSink {
public:
  virtual SiteAggregate &record(RuleId Rule, const ApiCall &Call, std::uint64_t Cost, const std::string &Cause,
                                const GpuWork *Waited = nullptr, bool OwnWorkOnly = false) = 0;
  // A call that blocked its thread: its host time is the cost, and what a step lost.
  virtual SiteAggregate &recordHostWait(RuleId Rule, const ApiCall &Call, const std::string &Cause,
                                        const GpuWork *Waited = nullptr, bool OwnWorkOnly = false) = 0;
  // The site's record so far (null: none yet).
  virtual const SiteAggregate *aggregate(RuleId Rule, std::uint32_t Site) const = 0;

protected:
  ~FindingSink() = default;
};

class WindowPass {
public:
  virtual ~WindowPass() = default;
  virtual void run(const PassContext &Context, FindingSink &Sink) const = 0;
};

} // namespace syncwatch::runtime
