#include "TorchCurrentStreamPass.h"

#include <algorithm>

namespace syncwatch::runtime {

// A launch onto a default stream while PyTorch's current stream was another (capture reads
// it: TorchStreams.h). Reported every time - it is an ordering bug whatever it cost - and
// said to have raced when its kernel overlapped work on the current stream that was queued
// before it (still running when it started) or after it (started before it ended): nothing
// orders the two, PyTorch's streams being non-blocking.
void TorchCurrentStreamPass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  const WindowIndex &I = Ctx.Index;
  const std::map<std::uint32_t, StreamInfo> &Streams = Ctx.Streams;
  // Bounded scan for a kernel queued before and still running (ByEnd from the kernel's start).
  constexpr int kScan = 256;
  for (std::size_t N = 0; N < I.InScope; ++N) {
    const ApiCall &C = W.Calls[N];
    if (!C.OffTorchStream)
      continue;
    std::uint32_t Current = *C.OffTorchStream;
    auto Own = I.FirstOwn.find(C.Correlation);
    const GpuWork *K = Own == I.FirstOwn.end() ? nullptr : Own->second;
    const GpuWork *Raced = nullptr;
    bool Before = false;
    if (K && Current != ApiCall::kUnknownStream) {
      auto From = std::lower_bound(I.ByEnd.begin(), I.ByEnd.end(), K->Start,
                                   [](const GpuWork *G, std::uint64_t T) { return G->End <= T; });
      int Scanned = 0;
      for (auto It = From; It != I.ByEnd.end() && Scanned < kScan && !Raced; ++It, ++Scanned) {
        const GpuWork *G = *It;
        if (G->Stream == Current && G->Correlation < C.Correlation && G->Start < K->Start)
          Raced = G, Before = true;
      }
      auto After = std::lower_bound(I.ByStart.begin(), I.ByStart.end(), C.Enter,
                                    [](const GpuWork *G, std::uint64_t T) { return G->Start < T; });
      for (auto It = After; It != I.ByStart.end() && (*It)->Start < K->End && !Raced; ++It)
        if ((*It)->Stream == Current && (*It)->Correlation > C.Correlation)
          Raced = *It;
    }
    std::string CurrentName = Current == ApiCall::kUnknownStream ? "another stream" : streamLabel(Current, Streams);
    std::string What = K ? K->describe() + " went to the " + streamLabel(K->Stream, Streams)
                         : "'" + std::string(C.Api) + "' sent its kernel to a default stream";
    std::string Cause = What + " while PyTorch's current stream was " + CurrentName;
    if (Raced)
      Cause += Before ? "; it started while " + Raced->describe() + ", queued before it there, was still running"
                      : "; " + Raced->describe() + ", queued after it there, started before it ended";
    const SiteAggregate *Known = Sink.aggregate(RuleId::TorchCurrentStream, C.Site);
    std::string Kept = Known && Known->Unordered ? Known->Example : "";
    SiteAggregate &A = Sink.record(RuleId::TorchCurrentStream, C, 0, Cause, Raced);
    if (Current != ApiCall::kUnknownStream)
      A.CurrentStream = Current;
    if (K)
      A.LaunchStream = K->Stream;
    A.Unordered += Raced != nullptr;
    if (!Raced && !Kept.empty())
      A.Example = Kept;  // a seen race is the example worth showing
  }
}

} // namespace syncwatch::runtime
