#include "SerializationPass.h"

#include <algorithm>

namespace syncwatch::runtime {

void SerializationPass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  const WindowIndex &I = Ctx.Index;
  const EngineConfig &Config = Ctx.Config;
  const std::map<std::uint32_t, StreamInfo> &Streams = Ctx.Streams;
  const auto &ByCorrelation = I.ByCorrelation;
  const std::vector<const GpuWork *> &ByEnd = I.ByEnd;
  auto FlagOf = [&](std::uint32_t S) {
    auto It = Streams.find(S);
    return It == Streams.end() ? StreamFlag::Unknown : It->second.Flag;
  };
  for (const GpuWork &A : W.Work) {
    StreamFlag Flag = FlagOf(A.Stream);
    if (Flag != StreamFlag::Legacy && Flag != StreamFlag::Blocking)
      continue;
    auto Issue = ByCorrelation.find(A.Correlation);
    if (Issue == ByCorrelation.end() || A.Start < Issue->second->Exit + Config.MinHeldNs)
      continue;
    const ApiCall &C = *Issue->second;
    // Work that ended just before A started: in A's own stream it is ordinary ordering;
    // in a stream A must synchronize with, it is what held A back.
    auto Lo = std::lower_bound(ByEnd.begin(), ByEnd.end(), A.Start > Config.SlackNs ? A.Start - Config.SlackNs : 0,
                               [](const GpuWork *G, std::uint64_t T) { return G->End < T; });
    const GpuWork *Blocker = nullptr;
    bool OwnStream = false;
    for (auto It = Lo; It != ByEnd.end() && (*It)->End <= A.Start; ++It) {
      const GpuWork *B = *It;
      if (B == &A || B->Start >= A.Start)
        continue;
      if (B->Stream == A.Stream) {
        OwnStream = true;
        continue;
      }
      StreamFlag BF = FlagOf(B->Stream);
      bool Serializes = Flag == StreamFlag::Legacy ? BF == StreamFlag::Blocking || BF == StreamFlag::Unknown
                                                   : BF == StreamFlag::Legacy;
      if (Serializes)
        Blocker = B;
    }
    if (!Blocker || OwnStream)
      continue;
    std::uint64_t Held = A.Start - std::max(C.Exit, Blocker->Start);
    std::string Cause = A.describe() + " on the " + streamLabel(A.Stream, Streams) + " was held " +
                        formatDuration(Held) + " until " + Blocker->describe() + " on " +
                        streamLabel(Blocker->Stream, Streams) + " ended";
    Sink.record(Flag == StreamFlag::Legacy ? RuleId::DefaultStream : RuleId::BlockingStream, C, Held, Cause, Blocker);
  }
}

} // namespace syncwatch::runtime
