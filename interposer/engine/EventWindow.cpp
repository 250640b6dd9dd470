#include "EventWindow.h"

#include "syncwatch/catalogue.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace syncwatch::runtime {

EventWindow::EventWindow(Engine &E, std::size_t Capacity, const EngineConfig &Cfg)
    : Analysis(E), Capacity(Capacity < 16 ? 16 : Capacity), Cfg(Cfg) {
  // Either can reach the capacity; pages are touched only as they fill.
  Pending.Calls.reserve(this->Capacity + 1);
  Pending.Work.reserve(this->Capacity + 1);
}

void EventWindow::addCall(ApiCall C) {
  Pending.Calls.push_back(std::move(C));
  if (buffered() > Capacity)
    analyzeOlderHalf();
}

void EventWindow::addWork(GpuWork W) {
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
  std::vector<GpuWork *> Sorted;
  explicit WorkByEnd(std::vector<GpuWork> &Work) {
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

void EventWindow::analyzeOlderHalf() {
  // Calls arrive in the order they returned; all but the newest quarter-window of them are
  // analyzed now - except older calls still waiting for their own records (a launch-bound
  // program makes thousands of calls between two CUPTI buffer deliveries): up to another
  // eighth of the window of them wait, for at most RecordLagNs, each with the call that
  // followed it on its thread. So at most half the window is carried as calls and a quarter
  // as work, and the next window has room for a quarter of a window of new events.
  std::size_t N = Pending.Calls.size();
  std::size_t Newest = N > Capacity / 4 ? N - Capacity / 4 : 0;
  std::unordered_set<std::uint32_t> HaveRecords;
  for (const GpuWork &W : Pending.Work)
    HaveRecords.insert(W.Correlation);
  std::uint64_t LatestExit = N ? Pending.Calls.back().Exit : 0;
  // Scratch vectors are members, cleared and reused: a window of 65536 calls reallocated at
  // every analysis fragmented the heap, and peak RSS grew with the number of calls
  // (+17 MiB over 30 M calls in bench/runtime_cost.sh's rss mode; bounded now).
  std::vector<ApiCall> &Judged = JudgedScratch, &Waiting = WaitingScratch;
  Judged.clear();
  Waiting.clear();
  // A waiting call's next call on its thread waits with it: a copy is judged with the
  // synchronize that followed it at once (PyTorch's blocking .to() in two calls).
  std::unordered_set<std::uint64_t> ThreadsWaiting;
  std::size_t WaitingForRecords = 0;
  for (std::size_t I = 0; I < Newest; ++I) {
    ApiCall &C = Pending.Calls[I];
    bool Follows = ThreadsWaiting.erase(C.Thread) > 0;
    bool NeedsRecords = WaitingForRecords < Capacity / 8 && judgedByOwnRecords(C) &&
                        !HaveRecords.count(C.Correlation) && C.Exit + Cfg.RecordLagNs >= LatestExit;
    bool Wait = Follows || NeedsRecords;
    if (NeedsRecords) {
      ++WaitingForRecords;
      ThreadsWaiting.insert(C.Thread);
    }
    (Wait ? Waiting : Judged).push_back(std::move(C));
  }
  std::size_t InScope = Judged.size();
  EventLog &Next = NextScratch;
  Next.Calls.clear();
  Next.Work.clear();
  Next.Streams.clear();
  Next.Sites.clear();
  Next.KernelsTracedFrom = Pending.KernelsTracedFrom;
  Next.Calls.insert(Next.Calls.end(), std::make_move_iterator(Waiting.begin()), std::make_move_iterator(Waiting.end()));
  Next.Calls.insert(Next.Calls.end(), std::make_move_iterator(Pending.Calls.begin() + static_cast<std::ptrdiff_t>(Newest)),
                    std::make_move_iterator(Pending.Calls.end()));
  // Judged: the older calls, then everything carried as context.
  Pending.Calls.swap(Judged);  // Judged now holds the old buffer, cleared next time
  Pending.Calls.insert(Pending.Calls.end(), Next.Calls.begin(), Next.Calls.end());
  Analysis.consume(Pending, InScope);

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
  std::unordered_set<std::uint32_t> Carried;
  for (const ApiCall &C : Next.Calls)
    Carried.insert(C.Correlation);
  std::unordered_map<std::uint32_t, std::uint64_t> OwnStart;  // earliest own record per carried call
  for (const GpuWork &W : Pending.Work)
    if (Carried.count(W.Correlation)) {
      auto [It, New] = OwnStart.try_emplace(W.Correlation, W.Start);
      if (!New)
        It->second = std::min(It->second, W.Start);
    }
  WorkByEnd Index(Pending.Work);
  const std::size_t MaxContext = Capacity / 4;
  std::vector<GpuWork *> Context;
  std::unordered_set<const GpuWork *> Kept;
  auto Keep = [&](GpuWork *W) {
    if (Context.size() < MaxContext && !Carried.count(W->Correlation) && Kept.insert(W).second)
      Context.push_back(W);
  };
  for (const ApiCall &C : Next.Calls) {
    if (Context.size() >= MaxContext)
      break;
    if (GpuWork *Last = Index.lastEndingBy(C.Exit + Cfg.SlackNs))
      Keep(Last);
    Index.runningAcross(C.Exit, Keep);
    auto Own = OwnStart.find(C.Correlation);
    if (Own != OwnStart.end() && Own->second > C.Exit) {
      std::uint64_t A = Own->second;
      Index.endingWithin(A > Cfg.SlackNs ? A - Cfg.SlackNs : 0, A, Keep);
      Index.runningAcross(C.Exit + (A - C.Exit) / 2, Keep);
    }
  }
  // Then, as context for calls not seen yet (a synchronize still running), the newest work.
  for (auto It = Index.Sorted.rbegin(); It != Index.Sorted.rend() && Context.size() < MaxContext; ++It)
    Keep(*It);
  for (GpuWork &W : Pending.Work)
    if (Carried.count(W.Correlation) || Kept.count(&W))
      Next.Work.push_back(std::move(W));
  // Copied back into Pending's own buffers (reserved once, never reallocated): swapping
  // would leave two window-sized buffers touched, and reallocating fragments the heap.
  Pending.Calls.clear();
  Pending.Work.clear();
  Pending.Streams.clear();
  Pending.Sites.clear();
  Pending.KernelsTracedFrom = Next.KernelsTracedFrom;
  Pending.Calls.insert(Pending.Calls.end(), std::make_move_iterator(Next.Calls.begin()), std::make_move_iterator(Next.Calls.end()));
  Pending.Work.insert(Pending.Work.end(), std::make_move_iterator(Next.Work.begin()), std::make_move_iterator(Next.Work.end()));
}

} // namespace syncwatch::runtime
