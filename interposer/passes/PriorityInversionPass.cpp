#include "PriorityInversionPass.h"

#include <optional>

namespace syncwatch::runtime {

void PriorityInversionPass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  const WindowIndex &I = Ctx.Index;
  const EngineConfig &Config = Ctx.Config;
  const std::map<std::uint32_t, StreamInfo> &Streams = Ctx.Streams;
  auto PriorityOf = [&](std::uint32_t S) -> std::optional<std::int32_t> {
    auto It = Streams.find(S);
    if (It == Streams.end())
      return std::nullopt;
    return It->second.Priority;
  };
  for (const GpuWork &A : W.Work) {
    std::optional<std::int32_t> PA = PriorityOf(A.Stream);
    if (A.Kind != GpuKind::Kernel || !PA || *PA >= 0)
      continue;
    auto Issue = I.ByCorrelation.find(A.Correlation);
    if (Issue == I.ByCorrelation.end())
      continue;
    const ApiCall &C = *Issue->second;
    // The urgent work was asked for when its launch was called. A launch that itself
    // blocked the host (seen on an H200: the first launch of a kernel, which loads its
    // module - CUDA_MODULE_LOADING=LAZY, the default - waited 14.5 ms and 1.03 s for the
    // low-priority matmuls to drain) holds the urgent work from its entry, not its return.
    bool LaunchBlocked = C.duration() >= Config.HostWaitThresholdNs;
    std::uint64_t Asked = LaunchBlocked ? C.Enter : C.Exit;
    if (A.Start < Asked + Config.MinHeldNs)
      continue;
    // What held it: a lower-priority kernel running across the middle of its delay - or,
    // when the launch blocked, the one that ended last before the launch returned (what the
    // launch waited for; EventWindow keeps that one for a call it carries, while the work
    // of a 1 s delay's middle may be long gone on a busy GPU).
    std::uint64_t Middle = Asked + (A.Start - Asked) / 2;
    const GpuWork *Holder = nullptr;
    bool OwnStream = false;
    for (const GpuWork *B : I.ByStart) {
      if (B->Start > A.Start)
        break;
      if (B == &A || B->End <= Asked)
        continue;
      if (B->Stream == A.Stream) {
        OwnStream = OwnStream || B->End + Config.SlackNs >= A.Start;
        continue;
      }
      std::optional<std::int32_t> PB = PriorityOf(B->Stream);
      if (B->Kind != GpuKind::Kernel || !PB || *PB <= *PA)
        continue;
      bool Held = LaunchBlocked ? B->End <= C.Exit + Config.SlackNs : B->Start <= Middle && B->End >= Middle;
      if (Held && (!Holder || B->End > Holder->End))
        Holder = B;
    }
    if (!Holder || OwnStream)
      continue;
    std::uint64_t Held = A.Start - Asked;
    std::string Cause = A.describe() + " on the " + streamLabel(A.Stream, Streams) + " started " +
                        formatDuration(Held) + " after it was issued, behind " + Holder->describe() + " on " +
                        streamLabel(Holder->Stream, Streams) +
                        (LaunchBlocked ? ": its launch itself blocked the host " + formatDuration(C.duration()) +
                                             " (a kernel's first launch loads its module and waits for the running "
                                             "kernels under CUDA_MODULE_LOADING=LAZY, the default: launch it once "
                                             "before the bulk work, or set CUDA_MODULE_LOADING=EAGER)"
                                       : std::string(" (priorities do not preempt running blocks)"));
    Sink.record(RuleId::PriorityInversion, C, Held, Cause, Holder);
  }
}

} // namespace syncwatch::runtime
