// Overlap figures of a run, the way Holistic Trace Analysis states them: per-stream busy
// time, the GPU's busy and idle time over its span, and the share of copy time overlapped
// by compute (memcpy and memset records against kernel records). The seed compares its
// blocking and non-blocking versions by that last figure.
//
// Streaming and bounded: records are buffered, and when the buffer fills, everything
// before the median start time is swept and folded into totals (intervals that cross the
// cut keep their remainder). A record that arrives after its time was folded counts only
// from the cut on.
#pragma once

#include "../events/EventLog.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct UtilizationFigures {
  std::uint64_t FirstNs = 0;      // when the first GPU work started
  std::uint64_t SpanNs = 0;       // first start to last end of any GPU work
  std::uint64_t BusyNs = 0;       // time any work ran
  std::uint64_t ComputeNs = 0;    // time a kernel ran
  std::uint64_t CopyNs = 0;       // time a memcpy or memset ran
  std::uint64_t OverlapNs = 0;    // time both ran
  std::map<std::uint32_t, std::uint64_t> StreamBusyNs;
  std::uint64_t Records = 0;
  double copyOverlapPercent() const { return CopyNs ? 100.0 * OverlapNs / CopyNs : 0.0; }
  std::uint64_t idleNs() const { return SpanNs > BusyNs ? SpanNs - BusyNs : 0; }
};

class Utilization {
public:
  // 16,384 intervals (384 KiB): a fold cuts at the median start, so a record counts whole
  // unless 8,192 records that started after it were delivered before it.
  explicit Utilization(std::size_t Capacity = 16384) : Capacity(Capacity < 64 ? 64 : Capacity) {}
  void add(const GpuWork &W);
  UtilizationFigures figures();  // folds everything buffered

private:
  struct Interval {
    std::uint64_t Start, End;
    std::uint32_t Stream;
    bool Compute;
  };
  struct Edge {
    std::uint64_t T;
    int Delta;
    std::uint32_t Stream;
    bool Compute;
  };
  void fold(std::uint64_t Cut);  // sweeps [.., Cut) of the buffer into the totals
  std::size_t Capacity;
  std::vector<Interval> Buffer, RestScratch;
  std::vector<Edge> EdgeScratch;
  std::uint64_t Folded = 0;       // time before which everything is folded
  UtilizationFigures Totals;
  std::uint64_t First = UINT64_MAX, Last = 0;
};

// The figures as report properties (JSON "figures", SARIF run properties) and as the text
// summary's lines. HostLostNs: the host time of all findings.
// KernelsTracedFrom as the engine has it: with kernels traced only part of the run
// (SYNCWATCH_KERNELS=auto), compute and overlap figures cover only that part, and say so.
std::vector<std::pair<std::string, std::string>> utilizationProperties(const UtilizationFigures &F,
                                                                       std::uint64_t HostLostNs,
                                                                       std::uint64_t KernelsTracedFrom);
std::string utilizationText(const UtilizationFigures &F, const std::map<std::uint32_t, StreamInfo> &Streams,
                            std::uint64_t HostLostNs, std::uint64_t KernelsTracedFrom);

} // namespace syncwatch::runtime
