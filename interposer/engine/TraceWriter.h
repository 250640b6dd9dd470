// SYNCWATCH_TRACE=1 / `syncwatch replay --trace`: a Chrome trace (JSON) that opens in
// Perfetto (ui.perfetto.dev) and chrome://tracing and that Holistic Trace Analysis can
// load. It follows what PyTorch's Kineto writes (a Kineto trace of the seed's PyTorch scenario, docs/measured-behaviour.md):
//   - GPU work on pid = device 0, one track (tid) per stream, categories kernel /
//     gpu_memcpy / gpu_memset, args device, stream, correlation, bytes, bandwidth;
//   - host API calls on the process's threads, categories cuda_runtime / cuda_driver,
//     args correlation; an "ac2g" flow from each call to the GPU work it issued;
//   - each syncwatch finding occurrence as an instant event on the stalled call's thread
//     (category syncwatch, args rule, cost, cause), with a flow arrow from the stalled
//     call to the GPU work it waited for or was held by.
// Bounded: only the newest MaxEvents calls and GPU records (and a tenth as many finding
// marks) are kept - the end of a long run.
#pragma once

#include "Engine.h"
#include "syncwatch/json_writer.h"

#include <deque>
#include <ostream>

namespace syncwatch::runtime {

struct TraceOptions {
  std::size_t MaxEvents = 500'000;
  std::uint64_t Pid = 0;
  std::string ProcessName = "process";
  // Where the GPU tracks go: pid 0, "GPU 0" for one process (Kineto's layout). `syncwatch
  // merge` gives each rank's GPU a pid and flow ids of its own, so ranks do not mix.
  std::uint64_t GpuPid = 0;
  std::string GpuName = "GPU 0";
  std::uint64_t FlowIdOffset = 0;
};


class TraceBuilder {
public:
  explicit TraceBuilder(TraceOptions O) : Opts(std::move(O)) {}
  void addCall(const ApiCall &C);
  void addWork(const GpuWork &W);
  void addStream(const StreamInfo &S);
  void addOccurrence(const Occurrence &O);
  // Reported(rule, site): whether that site ended up in the report; occurrences of sites
  // that did not (a single explicit synchronize) are not drawn.
  void write(std::ostream &Out, const std::function<bool(RuleId, std::uint32_t)> &Reported) const;
  // The events alone, into an open "traceEvents" array, timestamps after Base (ns): how
  // `syncwatch merge` puts several processes into one trace.
  void writeEvents(JsonWriter &J, const std::function<bool(RuleId, std::uint32_t)> &Reported,
                   std::uint64_t Base) const;
  std::uint64_t firstTime() const;  // UINT64_MAX when empty
  std::size_t size() const { return Calls.size() + Work.size() + Marks.size(); }

private:
  struct Mark {
    RuleId Rule;
    std::uint64_t Thread, At, CallStart;
    std::uint32_t Correlation, Site;
    bool HasWaited = false;
    std::uint32_t WaitedStream = 0;
    std::uint64_t WaitedStart = 0;
    std::uint64_t CostNs = 0;
    std::string Cause;
  };
  void trim();
  TraceOptions Opts;
  std::deque<ApiCall> Calls;
  std::deque<GpuWork> Work;
  std::deque<Mark> Marks;
  std::map<std::uint32_t, StreamInfo> Streams;
};

// A trace file's opening up to its open "traceEvents" array, and the whole-second base of
// its timestamps for a first event at First.
std::uint64_t traceBase(std::uint64_t First);
void writeTraceHeader(JsonWriter &J, std::uint64_t Base, int Rank);

} // namespace syncwatch::runtime
