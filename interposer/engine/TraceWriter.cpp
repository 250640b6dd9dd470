#include "TraceWriter.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/json_writer.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace syncwatch::runtime {

void TraceBuilder::addCall(const ApiCall &C) {
  Calls.push_back(C);
  trim();
}

void TraceBuilder::addWork(const GpuWork &W) {
  Work.push_back(W);
  trim();
}

void TraceBuilder::addStream(const StreamInfo &S) { Streams[S.Stream] = S; }

void TraceBuilder::addOccurrence(const Occurrence &O) {
  Mark M;
  M.Rule = O.Rule;
  M.Thread = O.Call->Thread;
  M.At = O.Call->Exit;
  M.CallStart = O.Call->Enter;
  M.Correlation = O.Call->Correlation;
  M.Site = O.Call->Site;
  if (O.Waited) {
    M.HasWaited = true;
    M.WaitedStream = O.Waited->Stream;
    M.WaitedStart = O.Waited->Start;
  }
  M.CostNs = O.CostNs;
  M.Cause = O.Cause ? *O.Cause : "";
  Marks.push_back(std::move(M));
  trim();
}

void TraceBuilder::trim() {
  while (Calls.size() + Work.size() > Opts.MaxEvents) {
    // Drop whichever is older, so the kept calls and work cover the same stretch of time.
    bool DropCall = !Calls.empty() && (Work.empty() || Calls.front().Exit <= Work.front().End);
    if (DropCall)
      Calls.pop_front();
    else
      Work.pop_front();
  }
  while (Marks.size() > Opts.MaxEvents / 10 + 1)
    Marks.pop_front();
}

namespace {

// Kineto's names: "Memcpy DtoH (Device -> Pageable)", "Memset (Device)".
std::string workName(const GpuWork &W) {
  if (W.Kind == GpuKind::Kernel)
    return W.Name.empty() ? "kernel" : std::string(W.Name);
  if (W.Kind == GpuKind::Memset)
    return "Memset (Device)";
  std::string_view K = copyKindName(W.CopyKind);
  return "Memcpy " + std::string(K.empty() ? "Unknown" : K) + " (" + std::string(memoryKindName(W.Src)) + " -> " +
         std::string(memoryKindName(W.Dst)) + ")";
}

constexpr std::uint64_t kFindingFlowBase = 1ull << 40;  // ids apart from correlation ids

} // namespace

std::uint64_t TraceBuilder::firstTime() const {
  std::uint64_t First = UINT64_MAX;
  for (const ApiCall &C : Calls)
    First = std::min(First, C.Enter);
  for (const GpuWork &W : Work)
    First = std::min(First, W.Start);
  return First;
}

std::uint64_t traceBase(std::uint64_t First) {
  // Kineto's convention: microsecond timestamps after a whole-second base.
  return First == UINT64_MAX ? 0 : First / 1'000'000'000 * 1'000'000'000;
}

void writeTraceHeader(JsonWriter &J, std::uint64_t Base, int Rank) {
  J.beginObject();
  J.field("schemaVersion", 1).field("displayTimeUnit", "ms").field("baseTimeNanoseconds", Base);
  J.field("traceName", "syncwatch");
  // HTA reads the rank from here (one trace file per process; ranks are told apart by pid).
  J.key("distributedInfo").beginObject().field("rank", Rank).endObject();
  J.key("traceEvents").beginArray();
}

void TraceBuilder::write(std::ostream &Out, const std::function<bool(RuleId, std::uint32_t)> &Reported) const {
  std::uint64_t Base = traceBase(firstTime());
  JsonWriter J(Out, /*Pretty=*/false);
  writeTraceHeader(J, Base, 0);
  writeEvents(J, Reported, Base);
  J.endArray();
  J.endObject();
  Out << "\n";
}

void TraceBuilder::writeEvents(JsonWriter &J, const std::function<bool(RuleId, std::uint32_t)> &Reported,
                               std::uint64_t Base) const {
  auto Us = [&](std::uint64_t Ns) { return static_cast<double>(Ns - std::min(Ns, Base)) / 1000.0; };
  const std::uint64_t Gpu = Opts.GpuPid, Flow = Opts.FlowIdOffset;
  auto Meta = [&](const char *Name, std::uint64_t Pid, std::uint64_t Tid, const std::string &Value) {
    J.beginObject().field("name", Name).field("ph", "M").field("ts", 0.0).field("pid", Pid).field("tid", Tid);
    J.key("args").beginObject().field("name", Value).endObject().endObject();
  };
  Meta("process_name", Opts.Pid, 0, Opts.ProcessName);
  Meta("process_name", Gpu, 0, Opts.GpuName);
  std::unordered_set<std::uint32_t> StreamsUsed;
  for (const GpuWork &W : Work)
    StreamsUsed.insert(W.Stream);
  for (std::uint32_t S : StreamsUsed)
    Meta("thread_name", Gpu, S, streamLabel(S, Streams));

  for (const ApiCall &C : Calls) {
    const ApiInfo *Api = findApi(C.Api);
    J.beginObject().field("ph", "X").field("cat", Api && Api->Layer == ApiLayer::Driver ? "cuda_driver" : "cuda_runtime");
    J.field("name", C.Api).field("pid", Opts.Pid).field("tid", C.Thread).field("ts", Us(C.Enter));
    J.field("dur", static_cast<double>(C.duration()) / 1000.0);
    J.key("args").beginObject().field("correlation", C.Correlation).endObject().endObject();
  }
  for (const GpuWork &W : Work) {
    const char *Cat = W.Kind == GpuKind::Kernel ? "kernel" : W.Kind == GpuKind::Memcpy ? "gpu_memcpy" : "gpu_memset";
    J.beginObject().field("ph", "X").field("cat", Cat).field("name", workName(W)).field("pid", Gpu).field("tid", W.Stream);
    J.field("ts", Us(W.Start)).field("dur", static_cast<double>(W.End - std::min(W.End, W.Start)) / 1000.0);
    J.key("args").beginObject().field("device", 0).field("stream", W.Stream).field("correlation", W.Correlation);
    if (W.Kind != GpuKind::Kernel) {
      J.field("bytes", W.Bytes);
      if (W.End > W.Start)
        J.field("memory bandwidth (GB/s)", static_cast<double>(W.Bytes) / static_cast<double>(W.End - W.Start));
    }
    J.endObject().endObject();
  }
  // ac2g: from the call to the GPU work it issued (Kineto's flow), where both are kept.
  std::unordered_map<std::uint32_t, const ApiCall *> ByCorrelation;
  for (const ApiCall &C : Calls)
    ByCorrelation[C.Correlation] = &C;
  for (const GpuWork &W : Work) {
    auto It = ByCorrelation.find(W.Correlation);
    if (It == ByCorrelation.end())
      continue;
    const ApiCall &C = *It->second;
    J.beginObject().field("ph", "s").field("id", Flow + W.Correlation).field("pid", Opts.Pid).field("tid", C.Thread);
    J.field("ts", Us(C.Enter)).field("cat", "ac2g").field("name", "ac2g").endObject();
    J.beginObject().field("ph", "f").field("id", Flow + W.Correlation).field("pid", Gpu).field("tid", W.Stream);
    J.field("ts", Us(W.Start)).field("cat", "ac2g").field("name", "ac2g").field("bp", "e").endObject();
  }
  // syncwatch's findings: an instant on the stalled call, an arrow to what it waited for.
  std::uint64_t FlowId = kFindingFlowBase;
  for (const Mark &M : Marks) {
    if (Reported && !Reported(M.Rule, M.Site))
      continue;
    std::string Rule(ruleInfo(M.Rule).Id);
    J.beginObject().field("ph", "i").field("s", "t").field("cat", "syncwatch").field("name", Rule);
    J.field("pid", Opts.Pid).field("tid", M.Thread).field("ts", Us(M.At));
    J.key("args").beginObject().field("rule", Rule).field("correlation", M.Correlation);
    J.field("cost (us)", static_cast<double>(M.CostNs) / 1000.0).field("cause", M.Cause).endObject().endObject();
    if (!M.HasWaited)
      continue;
    ++FlowId;
    J.beginObject().field("ph", "s").field("id", Flow + FlowId).field("pid", Opts.Pid).field("tid", M.Thread);
    J.field("ts", Us(M.CallStart)).field("cat", "syncwatch").field("name", Rule).endObject();
    J.beginObject().field("ph", "f").field("id", Flow + FlowId).field("pid", Gpu).field("tid", M.WaitedStream);
    J.field("ts", Us(M.WaitedStart)).field("cat", "syncwatch").field("name", Rule).field("bp", "e").endObject();
  }
}

} // namespace syncwatch::runtime
