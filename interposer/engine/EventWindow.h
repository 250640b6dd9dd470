// Bounded memory for long runs: events are buffered in a window that is analyzed when it
// fills, and only the engine's per-site aggregates outlive it.
//
// CUPTI hands over activity records (copies, kernels) in buffers, long after the API call
// that issued them returned: a call and its records can land in different windows. So when
// a window fills, its newest quarter-window of calls is carried into the next window,
// together with the GPU work that could still matter to them (their own records, and work
// that ended while they ran); the older calls are judged, but for those still waiting for
// their own records (launches, copies), which wait up to EngineConfig::RecordLagNs together
// with the call that followed each on its thread (a copy and its synchronize). A record
// that arrives later than that, or after more than three eighths of a window of calls, is
// lost; tests/runtime/replay_test.py
// replays recordings through small windows and late delivery to show the counts hold.
#pragma once

#include "Engine.h"

namespace syncwatch::runtime {

class EventWindow {
public:
  // Cfg: the engine's own slacks, which say what work a carried call can still need.
  EventWindow(Engine &E, std::size_t Capacity, const EngineConfig &Cfg = EngineConfig());

  void addCall(ApiCall C);
  void addWork(GpuWork W);
  void addStream(const StreamInfo &S);
  void setKernelsTracedFrom(std::uint64_t Ns) { Pending.KernelsTracedFrom = Ns; }
  // Analyzes everything still buffered (at exit).
  void flush();
  std::size_t buffered() const { return Pending.Calls.size() + Pending.Work.size(); }

private:
  void analyzeOlderHalf();
  Engine &Analysis;
  std::size_t Capacity;
  EngineConfig Cfg;
  EventLog Pending;
  std::vector<ApiCall> JudgedScratch, WaitingScratch;  // analyzeOlderHalf's, reused
  EventLog NextScratch;
};

} // namespace syncwatch::runtime
