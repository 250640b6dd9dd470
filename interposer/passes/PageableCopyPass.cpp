#include "PageableCopyPass.h"

#include "syncwatch/catalogue.h"

namespace syncwatch::runtime {

void PageableCopyPass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  const WindowIndex &I = Ctx.Index;
  const EngineConfig &Config = Ctx.Config;
  const std::map<std::uint32_t, StreamInfo> &Streams = Ctx.Streams;
  const auto &ByCorrelation = I.ByCorrelation;
  for (const GpuWork &G : W.Work) {
    if (G.Kind != GpuKind::Memcpy || !G.Async ||
        (G.Src != MemoryKind::Pageable && G.Dst != MemoryKind::Pageable))
      continue;
    auto It = ByCorrelation.find(G.Correlation);
    if (It == ByCorrelation.end())
      continue;
    const ApiCall &C = *It->second;
    std::string Cause = "'" + std::string(C.Api) + "' took " + formatDuration(C.duration()) + " of host time for a " +
                        G.describe() + " with " +
                        (G.Src == MemoryKind::Pageable ? "a pageable source" : "a pageable destination") +
                        " on " + streamLabel(G.Stream, Streams);
    SiteAggregate &A = Sink.recordHostWait(RuleId::PageableAsyncCopy, C, Cause, &G, I.ownWorkOnly(C, Config.SlackNs));
    const ApiCall *Next = I.next(W, C);
    const ApiInfo *NextApi = Next ? findApi(Next->Api) : nullptr;
    if (NextApi && isExplicitSync(*NextApi) && Next->Enter < C.Exit + Config.WaitSlackNs) {
      ++A.FollowedBySync;
      A.SyncApi = std::string(Next->Api);
    }
  }
}

} // namespace syncwatch::runtime
