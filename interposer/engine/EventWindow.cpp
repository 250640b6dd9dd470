#include "EventWindow.h"

#include "syncwatch/catalogue.h"

#include <algorithm>
#include <iterator>
#include <unordered_set>

namespace syncwatch::runtime {

void JudgedWithoutRecords::mark(std::uint32_t Correlation) {
  std::uint64_t C = Correlation;
  if (C > High) {
    // Slots from High on are reused for the new correlations: cleared first.
    if (High == 0 || C - High >= kSpan)
      std::fill(Bits.begin(), Bits.end(), 0);
    else
      for (std::uint64_t X = High + 1; X < C; ++X)
        Bits[(X % kSpan) / 64] &= ~(std::uint64_t{1} << (X % 64));
    Bits[(C % kSpan) / 64] &= ~(std::uint64_t{1} << (C % 64));
    High = C;
  } else if (High - C >= kSpan) {
    return;  // older than what is remembered
  }
  Bits[(C % kSpan) / 64] |= std::uint64_t{1} << (C % 64);
}

bool JudgedWithoutRecords::contains(std::uint32_t Correlation) const {
  std::uint64_t C = Correlation;
  if (High == 0 || C > High || High - C >= kSpan)
    return false;
  return (Bits[(C % kSpan) / 64] >> (C % 64)) & 1;
}

EventWindow::EventWindow(Engine &E, std::size_t Capacity, const EngineConfig &Cfg, std::size_t Largest)
    : Analysis(E), Capacity(Capacity < 16 ? 16 : Capacity), Largest(std::max(Largest, this->Capacity)), Cfg(Cfg) {
  // Either can reach the capacity; pages are touched only as they fill.
  Pending.Calls.reserve(this->Capacity + 1);
  Pending.Work.reserve(this->Capacity + 1);
}

void EventWindow::grow() {
  if (Capacity >= Largest)
    return;
  Capacity = std::min(Capacity * 2, Largest);
  Pending.Calls.reserve(Capacity + 1);
  Pending.Work.reserve(Capacity + 1);
}

void EventWindow::addCall(ApiCall C) {
  Pending.Calls.push_back(std::move(C));
  if (buffered() > Capacity)
    analyzeOlderHalf();
}

void EventWindow::addWork(GpuWork W) {
  if (Lost.contains(W.Correlation)) {
    ++LateRecords;
    grow();
  }
  Pending.Work.push_back(std::move(W));
  if (buffered() > Capacity)
    analyzeOlderHalf();
}

void EventWindow::addStream(const StreamInfo &S) { Pending.Streams.push_back(S); }

void EventWindow::flush() {
  Analysis.consume(Pending);
  auto From = Pending.KernelsTracedFrom;
  Pending = EventLog{};
  Pending.KernelsTracedFrom = From;
}

namespace {

// Work sorted by end time, with the questions the carry policy asks of it.
struct WorkByEnd {
  std::vector<GpuWork *> &Sorted;
  WorkByEnd(std::vector<GpuWork> &Work, std::vector<GpuWork *> &Scratch) : Sorted(Scratch) {
    Sorted.clear();
    for (GpuWork &W : Work)
      Sorted.push_back(&W);
    std::sort(Sorted.begin(), Sorted.end(), [](const GpuWork *A, const GpuWork *B) { return A->End < B->End; });
  }
  std::vector<GpuWork *>::iterator firstEndingAtOrAfter(std::uint64_t T) {
    return std::lower_bound(Sorted.begin(), Sorted.end(), T, [](const GpuWork *G, std::uint64_t V) { return G->End < V; });
  }
  // The work that ended last at or before T (what a call returning at T waited for).
  GpuWork *lastEndingBy(std::uint64_t T) {
    auto It = std::upper_bound(Sorted.begin(), Sorted.end(), T, [](std::uint64_t V, const GpuWork *G) { return V < G->End; });
    return It == Sorted.begin() ? nullptr : *std::prev(It);
  }
  // Work running across T: started before it, ends after it. Few things run at once, so
  // the scan looks at a bounded number of the works that end after T.
  template <typename Keep> void runningAcross(std::uint64_t T, Keep &&K) {
    constexpr std::size_t Scan = 64;
    std::size_t N = 0;
    for (auto It = firstEndingAtOrAfter(T); It != Sorted.end() && N < Scan; ++It, ++N)
      if ((*It)->Start <= T)
        K(*It);
  }
  // Work that ended within [Lo, Hi] (what held a launch whose kernel started at Hi).
  template <typename Keep> void endingWithin(std::uint64_t Lo, std::uint64_t Hi, Keep &&K) {
    for (auto It = firstEndingAtOrAfter(Lo); It != Sorted.end() && (*It)->End <= Hi; ++It)
      K(*It);
  }
};

} // namespace

// Calls judged by their own GPU records (launches: serialization, priority; copies and
// memsets: pageable memory, own-work-only waits), which CUPTI delivers late.
static bool judgedByOwnRecords(const ApiCall &C) {
  const ApiInfo *Api = findApi(C.Api);
  return Api && Api->hasGpuRecord();
}

// Rearranges the calls before Newest in place, into [judged | waiting | newest]: the
// judged calls keep their order at the front, the waiting ones (at most an eighth of the
// window) go through a reused scratch into the gap; returns how many are judged. A second
// window-sized buffer of calls was a quarter of the window's peak memory.
std::size_t EventWindow::orderForJudging(std::size_t Newest) {
  std::size_t N = Pending.Calls.size();
  // Sorted vectors, members reused, not node-based sets: a set node per event was a heap
  // block per event at every analysis, most of the window's peak memory (issue 40).
  std::vector<std::uint32_t> &HaveRecords = CorrelationScratch;
  HaveRecords.clear();
  for (const GpuWork &W : Pending.Work)
    HaveRecords.push_back(W.Correlation);
  std::sort(HaveRecords.begin(), HaveRecords.end());
  auto HasRecords = [&](std::uint32_t Corr) { return std::binary_search(HaveRecords.begin(), HaveRecords.end(), Corr); };
  std::uint64_t LatestExit = N ? Pending.Calls.back().Exit : 0;
  std::vector<ApiCall> &Waiting = WaitingScratch;
  Waiting.clear();
  // A waiting call's next call on its thread waits with it: a copy is judged with the
  // synchronize that followed it at once (PyTorch's blocking .to() in two calls). Few
  // threads wait at once: a small vector.
  std::vector<std::uint64_t> &ThreadsWaiting = ThreadScratch;
  ThreadsWaiting.clear();
  std::size_t WaitingForRecords = 0, InScope = 0;
  for (std::size_t I = 0; I < Newest; ++I) {
    ApiCall &C = Pending.Calls[I];
    auto T = std::find(ThreadsWaiting.begin(), ThreadsWaiting.end(), C.Thread);
    bool Follows = T != ThreadsWaiting.end();
    if (Follows)
      ThreadsWaiting.erase(T);
    bool NeedsRecords = WaitingForRecords < Capacity / 8 && judgedByOwnRecords(C) &&
                        !HasRecords(C.Correlation) && C.Exit + Cfg.RecordLagNs >= LatestExit;
    if (NeedsRecords) {
      ++WaitingForRecords;
      ThreadsWaiting.push_back(C.Thread);
    }
    if (Follows || NeedsRecords) {
      Waiting.push_back(std::move(C));
      continue;
    }
    if (judgedByOwnRecords(C) && !HasRecords(C.Correlation))
      Lost.mark(C.Correlation);  // a record of it that comes now has come too late
    if (InScope++ != I)
      Pending.Calls[InScope - 1] = std::move(C);
  }
  std::move(Waiting.begin(), Waiting.end(), Pending.Calls.begin() + static_cast<std::ptrdiff_t>(InScope));
  return InScope;
}

void EventWindow::analyzeOlderHalf() {
  // Calls arrive in the order they returned; all but the newest quarter-window of them are
  // analyzed now - except older calls still waiting for their own records (a launch-bound
  // program makes thousands of calls between two CUPTI buffer deliveries): up to another
  // eighth of the window of them wait, for at most RecordLagNs, each with the call that
  // followed it on its thread. So at most half the window is carried as calls and a quarter
  // as work, and the next window has room for a quarter of a window of new events.
  std::size_t N = Pending.Calls.size();
  std::size_t Newest = N > Capacity / 4 ? N - Capacity / 4 : 0;
  std::size_t InScope = orderForJudging(Newest);
  // Judged: the older calls, then everything carried as context.
  Analysis.consume(Pending, InScope);
  // The carried calls, in the order the next window judges them: Pending.Calls[InScope, N).
  auto Carry = Pending.Calls.begin() + static_cast<std::ptrdiff_t>(InScope);

  // The carried calls' own records always stay. Other work stays only where a rule will
  // ask about it for a carried call - not "everything since the oldest carried call",
  // which a program whose few recorded calls each wait for many kernels (a PyTorch step
  // read with .item(), once launches are not recorded) overflows, losing exactly the work
  // the oldest carried calls waited for. What the engine asks (Engine.cpp):
  //  - of a wait returning at Exit: the work that ended last before Exit + SlackNs, and
  //    work running across Exit (a device-wide wait returns to an idle device);
  //  - of a launch or copy whose record A is here: work of another stream that ended in
  //    the SlackNs before A started (what held it), and work running across the middle of
  //    its delay (what a high-priority kernel waited behind).
  // Oldest carried calls first: they are the next to be judged.
  std::vector<std::uint32_t> &Carried = CorrelationScratch;
  Carried.clear();
  for (auto It = Carry; It != Pending.Calls.end(); ++It)
    Carried.push_back(It->Correlation);
  std::sort(Carried.begin(), Carried.end());
  auto IsCarried = [&](std::uint32_t Corr) { return std::binary_search(Carried.begin(), Carried.end(), Corr); };
  // The earliest own record of each carried call, sorted by correlation.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> &OwnStart = OwnStartScratch;
  OwnStart.clear();
  for (const GpuWork &W : Pending.Work)
    if (IsCarried(W.Correlation))
      OwnStart.emplace_back(W.Correlation, W.Start);
  std::sort(OwnStart.begin(), OwnStart.end());  // per correlation, the earliest start first
  WorkByEnd Index(Pending.Work, SortedScratch);
  const std::size_t MaxContext = Capacity / 4;
  std::size_t ContextSize = 0;
  // Kept[i]: Pending.Work[i] stays as context.
  std::vector<bool> &Kept = KeptScratch;
  Kept.assign(Pending.Work.size(), false);
  auto Keep = [&](GpuWork *W) {
    std::size_t I = static_cast<std::size_t>(W - Pending.Work.data());
    if (ContextSize < MaxContext && !Kept[I] && !IsCarried(W->Correlation)) {
      Kept[I] = true;
      ++ContextSize;
    }
  };
  for (auto It = Carry; It != Pending.Calls.end(); ++It) {
    const ApiCall &C = *It;
    if (ContextSize >= MaxContext)
      break;
    if (GpuWork *Last = Index.lastEndingBy(C.Exit + Cfg.SlackNs))
      Keep(Last);
    Index.runningAcross(C.Exit, Keep);
    auto Own = std::lower_bound(OwnStart.begin(), OwnStart.end(), std::make_pair(C.Correlation, std::uint64_t{0}));
    if (Own != OwnStart.end() && Own->first == C.Correlation && Own->second > C.Exit) {
      std::uint64_t A = Own->second;
      Index.endingWithin(A > Cfg.SlackNs ? A - Cfg.SlackNs : 0, A, Keep);
      Index.runningAcross(C.Exit + (A - C.Exit) / 2, Keep);
    }
  }
  // Then, as context for calls not seen yet (a synchronize still running), the newest work.
  for (auto It = Index.Sorted.rbegin(); It != Index.Sorted.rend() && ContextSize < MaxContext; ++It)
    Keep(*It);
  // Both kept in place, in their order: the carried calls moved to the front, the work
  // that stays compacted.
  Pending.Calls.erase(Pending.Calls.begin(), Carry);
  std::size_t Stay = 0;
  for (std::size_t I = 0; I < Pending.Work.size(); ++I)
    if (Kept[I] || IsCarried(Pending.Work[I].Correlation)) {
      if (Stay != I)
        Pending.Work[Stay] = std::move(Pending.Work[I]);
      ++Stay;
    }
  Pending.Work.resize(Stay);
  Pending.Streams.clear();
  Pending.Sites.clear();
}

} // namespace syncwatch::runtime
