#include "Utilization.h"

#include <algorithm>
#include <cstdio>

namespace syncwatch::runtime {

void Utilization::add(const GpuWork &W) {
  if (W.End <= W.Start)
    return;
  ++Totals.Records;
  First = std::min(First, W.Start);
  Last = std::max(Last, W.End);
  std::uint64_t Start = std::max(W.Start, Folded);
  if (W.End <= Start)
    return;
  if (Buffer.capacity() == 0)
    Buffer.reserve(Capacity + 1);  // grown by doubling, it touched twice the pages
  Buffer.push_back({Start, W.End, W.Stream, W.Kind == GpuKind::Kernel});
  if (Buffer.size() > Capacity) {
    std::nth_element(Buffer.begin(), Buffer.begin() + Buffer.size() / 2, Buffer.end(),
                     [](const Interval &A, const Interval &B) { return A.Start < B.Start; });
    fold(Buffer[Buffer.size() / 2].Start);
  }
}

void Utilization::fold(std::uint64_t Cut) {
  // Sweep line over the parts before Cut: +1 at a start, -1 at an end.
  // Scratch kept between folds (Edges, Rest): a fold every half buffer that allocated its
  // own fragmented the heap of a long run.
  std::vector<Edge> &Edges = EdgeScratch;
  std::vector<Interval> &Rest = RestScratch;
  Edges.clear();
  Rest.clear();
  for (const Interval &I : Buffer) {
    if (I.Start < Cut) {
      std::uint64_t End = std::min(I.End, Cut);
      Edges.push_back({I.Start, +1, I.Stream, I.Compute});
      Edges.push_back({End, -1, I.Stream, I.Compute});
    }
    if (I.End > Cut)
      Rest.push_back({std::max(I.Start, Cut), I.End, I.Stream, I.Compute});
  }
  std::sort(Edges.begin(), Edges.end(), [](const Edge &A, const Edge &B) { return A.T < B.T; });
  int Compute = 0, Copy = 0;
  std::map<std::uint32_t, int> Active;
  std::uint64_t Prev = Edges.empty() ? 0 : Edges.front().T;
  for (const Edge &E : Edges) {
    std::uint64_t Dt = E.T - Prev;
    if (Dt) {
      if (Compute || Copy)
        Totals.BusyNs += Dt;
      if (Compute)
        Totals.ComputeNs += Dt;
      if (Copy)
        Totals.CopyNs += Dt;
      if (Compute && Copy)
        Totals.OverlapNs += Dt;
      for (const auto &[S, N] : Active)
        if (N > 0)
          Totals.StreamBusyNs[S] += Dt;
    }
    Prev = E.T;
    (E.Compute ? Compute : Copy) += E.Delta;
    Active[E.Stream] += E.Delta;
  }
  Buffer.assign(Rest.begin(), Rest.end());  // into its own reserved buffer
  Folded = std::max(Folded, Cut);
}

UtilizationFigures Utilization::figures() {
  fold(UINT64_MAX);
  Totals.SpanNs = Last > First ? Last - First : 0;
  Totals.FirstNs = First == UINT64_MAX ? 0 : First;
  return Totals;
}

static std::string ms(std::uint64_t Ns) {
  char B[32];
  std::snprintf(B, sizeof B, "%.2f", Ns / 1e6);
  return B;
}

static std::string kernelCoverage(const UtilizationFigures &F, std::uint64_t KernelsTracedFrom) {
  if (KernelsTracedFrom == 0 || KernelsTracedFrom <= F.FirstNs)
    return "all";
  if (KernelsTracedFrom == UINT64_MAX || KernelsTracedFrom >= F.FirstNs + F.SpanNs)
    return "none";
  return "from " + ms(KernelsTracedFrom - F.FirstNs) + " ms on";
}

std::vector<std::pair<std::string, std::string>> utilizationProperties(const UtilizationFigures &F,
                                                                       std::uint64_t HostLostNs,
                                                                       std::uint64_t KernelsTracedFrom) {
  char Pct[32];
  std::snprintf(Pct, sizeof Pct, "%.1f", F.copyOverlapPercent());
  std::vector<std::pair<std::string, std::string>> P = {
      {"gpuSpanMs", ms(F.SpanNs)},          {"gpuBusyMs", ms(F.BusyNs)},
      {"gpuIdleMs", ms(F.idleNs())},        {"computeMs", ms(F.ComputeNs)},
      {"copyMs", ms(F.CopyNs)},             {"copyOverlappedByComputeMs", ms(F.OverlapNs)},
      {"copyOverlapPercent", Pct},          {"hostTimeLostMs", ms(HostLostNs)},
      {"gpuRecords", std::to_string(F.Records)}};
  for (const auto &[S, Ns] : F.StreamBusyNs)
    P.push_back({"streamBusyMs." + std::to_string(S), ms(Ns)});
  P.push_back({"kernelsTraced", kernelCoverage(F, KernelsTracedFrom)});
  return P;
}

std::string utilizationText(const UtilizationFigures &F, const std::map<std::uint32_t, StreamInfo> &Streams,
                            std::uint64_t HostLostNs, std::uint64_t KernelsTracedFrom) {
  char Line[256];
  std::string Out;
  std::snprintf(Line, sizeof Line,
                "GPU: span %s ms, busy %s ms, idle %s ms; compute %s ms, copies %s ms, %.1f%% of copy time "
                "overlapped by compute; host time lost to findings %s ms\n",
                ms(F.SpanNs).c_str(), ms(F.BusyNs).c_str(), ms(F.idleNs()).c_str(), ms(F.ComputeNs).c_str(),
                ms(F.CopyNs).c_str(), F.copyOverlapPercent(), ms(HostLostNs).c_str());
  Out += Line;
  std::string Coverage = kernelCoverage(F, KernelsTracedFrom);
  if (Coverage != "all")
    Out += "  (kernels traced: " + Coverage + "; compute and overlap figures cover only that - SYNCWATCH_KERNELS=1 traces all)\n";
  std::vector<std::pair<std::uint64_t, std::uint32_t>> Busy;
  for (const auto &[S, Ns] : F.StreamBusyNs)
    Busy.push_back({Ns, S});
  std::sort(Busy.rbegin(), Busy.rend());
  for (const auto &[Ns, S] : Busy)
    Out += "  " + streamLabel(S, Streams) + ": busy " + ms(Ns) + " ms\n";
  return Out;
}

} // namespace syncwatch::runtime
