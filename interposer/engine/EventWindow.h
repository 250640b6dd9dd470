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

// Bounded by the records' delivery lag, not by the number of calls (issue 40): the window
// starts small (Capacity events) and doubles, up to Largest, when a GPU record arrives for
// a call that was judged without it - the only sign that it was too small for how late
// CUPTI hands records over. A program whose records come within a buffer of their calls
// never needs more (test_inputs/runtime's recordings: at most ~6,100 events late, under
// SYNCWATCH_MEASURE=steps), and its memory stays what that takes.
class JudgedWithoutRecords {
public:
  void mark(std::uint32_t Correlation);
  bool contains(std::uint32_t Correlation) const;

private:
  static constexpr std::uint64_t kSpan = 1u << 18;  // correlations remembered: 32 KiB of bits
  std::vector<std::uint64_t> Bits = std::vector<std::uint64_t>(kSpan / 64);
  std::uint64_t High = 0;  // the highest correlation marked; 0: none yet
};

class EventWindow {
public:
  // Cfg: the engine's own slacks, which say what work a carried call can still need.
  // Largest (0: Capacity): how far the window may grow when records come late.
  EventWindow(Engine &E, std::size_t Capacity, const EngineConfig &Cfg = EngineConfig(), std::size_t Largest = 0);

  void addCall(ApiCall C);
  void addWork(GpuWork W);
  void addStream(const StreamInfo &S);
  void setKernelsTracedFrom(std::uint64_t Ns) { Pending.KernelsTracedFrom = Ns; }
  // Analyzes everything still buffered (at exit).
  void flush();
  std::size_t buffered() const { return Pending.Calls.size() + Pending.Work.size(); }
  std::size_t capacity() const { return Capacity; }
  // GPU records that arrived after their call had been judged without them.
  std::uint64_t lateRecords() const { return LateRecords; }

private:
  void analyzeOlderHalf();
  std::size_t orderForJudging(std::size_t Newest);
  void grow();
  Engine &Analysis;
  std::size_t Capacity, Largest;
  JudgedWithoutRecords Lost;
  std::uint64_t LateRecords = 0;
  EngineConfig Cfg;
  EventLog Pending;
  // analyzeOlderHalf's, reused
  std::vector<ApiCall> WaitingScratch;
  std::vector<std::uint64_t> ThreadScratch;
  std::vector<std::uint32_t> CorrelationScratch;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> OwnStartScratch;
  std::vector<GpuWork *> SortedScratch;
  std::vector<bool> KeptScratch;
};

} // namespace syncwatch::runtime
