#include "HostWaitPass.h"

#include "syncwatch/catalogue.h"

#include <algorithm>
#include <string>

namespace syncwatch::runtime {
namespace {

// Why a call of this API waits, in the catalogue's words (cuda_api.def's Drains and Issues).
std::string causeOf(const ApiInfo &Api) {
  if (isExplicitSync(Api) || Api.Drains == Drain::StreamWhenPolled || Api.Drains == Drain::EventWhenPolled)
    return "explicit synchronization";
  if (Api.Drains == Drain::Device)
    return "device-wide implicit synchronization";
  if (Api.hasGpuRecord() && Api.Family != ApiFamily::Launch)
    return Api.takesStream() ? "copy that waited on the host" : "synchronous copy on the legacy default stream";
  return std::string(documentedSyncText(Api.Documented));
}

// The analyzer's answer too (cuda_api.def's Drains column): measured to wait for the whole
// device. A call only documented as device-wide (cudaMalloc) returned at once on the H200.
bool isDeviceWide(const ApiInfo &Api) { return Api.Drains == Drain::Device; }

// Is any GPU work running at time T (started before it and ended after it, with slack)?
bool runningAcross(const std::vector<const GpuWork *> &ByStart, std::uint64_t T, std::uint64_t Slack) {
  for (const GpuWork *G : ByStart) {
    if (G->Start + Slack >= T)
      break;
    if (G->End > T + Slack)
      return true;
  }
  return false;
}

// Whether a launch's kernel went to a stream of higher than default priority.
bool launchedOntoHighPriority(const ApiCall &C, const WindowIndex &I,
                              const std::map<std::uint32_t, StreamInfo> &Streams) {
  auto Own = I.FirstOwn.find(C.Correlation);
  if (Own == I.FirstOwn.end())
    return false;
  auto It = Streams.find(Own->second->Stream);
  return It != Streams.end() && It->second.Priority < 0;
}

} // namespace

void HostWaitPass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  const WindowIndex &I = Ctx.Index;
  const EngineConfig &Config = Ctx.Config;
  const std::map<std::uint32_t, StreamInfo> &Streams = Ctx.Streams;
  // Work sorted by end time: what ended inside a call's window is a binary search away.
  const std::vector<const GpuWork *> &ByEnd = I.ByEnd;
  for (std::size_t N = 0; N < I.InScope; ++N) {
    const ApiCall &C = W.Calls[N];
    // A call that created the CUDA context spent its time starting CUDA up; no GPU work
    // can have been in flight (cublasCreate's cudaFree(0), a first cudaMalloc).
    if (C.duration() < Config.HostWaitThresholdNs || C.CreatedContext)
      continue;
    const ApiInfo *Api = findApi(C.Api);
    // Async copies are judged by their memcpy record (PageableCopyPass), not here. Calls the
    // truth table measured not to wait (cudaMalloc, cudaHostAlloc, cudaMemset...) are not
    // blamed for GPU work that happened to end while they ran: timing alone cannot tell a
    // wait from a coincidence on a busy GPU (seen: cudaHostAlloc in the seed's scenario).
    // A launch is the exception: one that blocked the host for milliseconds waited for
    // something (a kernel's first launch loads its module, which waits for the running
    // kernels under CUDA_MODULE_LOADING=LAZY). Onto a high-priority stream that is the
    // priority-inversion finding, with the time the urgent work lost.
    bool Launch = Api && Api->Family == ApiFamily::Launch;
    if (!Api || (Api->Family == ApiFamily::Copy && Api->takesStream()) ||
        (!mayWait(*Api) && !Launch))
      continue;
    if (Launch && launchedOntoHighPriority(C, I, Streams))
      continue;
    auto It = std::upper_bound(ByEnd.begin(), ByEnd.end(), C.Exit + Config.SlackNs,
                               [](std::uint64_t T, const GpuWork *G) { return T < G->End; });
    // (a launch waits for others' work only: its own kernel may have run before it returned)
    while (Launch && It != ByEnd.begin() && (*std::prev(It))->Correlation == C.Correlation)
      --It;
    const GpuWork *Last = It == ByEnd.begin() ? nullptr : *std::prev(It);
    // What the call waited for ended just before it returned; anything earlier finished
    // while the call was busy with its own work (cudaMallocAsync creating its pool).
    if (!Last || Last->End < C.Enter || Last->End + Config.WaitSlackNs < C.Exit) {
      // Before kernel tracing began, a wait has no kernel record to show. A call that
      // waits by design or is a device-wide implicit sync is still reported, saying so.
      // Seen without CUPTI, no wait has a record: every call that can wait is reported on
      // its time alone, saying so.
      if (Config.SeenWithoutCupti)
        Sink.recordHostWait(Api->Rule, C,
               "'" + std::string(C.Api) + "' blocked the host " + formatDuration(C.duration()) + " (" + causeOf(*Api) +
                   "; timed at its entry point without CUPTI, which another tool held: what it waited for is not known)");
      else if (C.Enter < Ctx.KernelsTracedFrom && (isExplicitSync(*Api) || isDeviceWide(*Api)))
        Sink.recordHostWait(Api->Rule, C,
               "'" + std::string(C.Api) + "' blocked the host " + formatDuration(C.duration()) + " (" + causeOf(*Api) +
                   "; the kernels it waited for were not traced yet - SYNCWATCH_KERNELS=1 traces them from the start)");
      continue;
    }
    // A device-wide wait returns to an idle device: work still running across the return
    // means this call did not wait for the device (cudaHostAlloc while kernels ran on).
    if (isDeviceWide(*Api) && runningAcross(I.ByStart, C.Exit, Config.SlackNs))
      continue;
    std::string Cause = "'" + std::string(C.Api) + "' blocked the host " + formatDuration(C.duration()) +
                        " waiting for " + Last->describe() + " on " + streamLabel(Last->Stream, Streams) + " (" +
                        (Launch ? std::string("a kernel's first launch loads its module and waits for the running "
                                              "kernels under CUDA_MODULE_LOADING=LAZY, the default: warm the kernel up "
                                              "outside the hot path, or set CUDA_MODULE_LOADING=EAGER")
                                : causeOf(*Api)) +
                        ")";
    bool Own = Last->Correlation == C.Correlation && I.ownWorkOnly(C, Config.SlackNs);
    if (Own)
      Cause += "; it waited for its own " + Last->describe() + " only";
    Sink.recordHostWait(Launch ? RuleId::ImplicitSync : Api->Rule, C, Cause, Last, Own);
  }
}

} // namespace syncwatch::runtime
