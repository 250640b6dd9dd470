#include "EventWindow.h"

#include <algorithm>
#include <iterator>
#include <unordered_set>

namespace syncwatch::runtime {

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

void EventWindow::analyzeOlderHalf() {
  // Calls arrive in the order they returned; all but the newest quarter-window of them are
  // analyzed now. At most a quarter of the window is carried as calls and a quarter as
  // work, so the next window has room for half a window of new events.
  std::size_t N = Pending.Calls.size();
  std::size_t InScope = N > Capacity / 4 ? N - Capacity / 4 : 0;
  Analysis.consume(Pending, InScope);

  EventLog Next;
  Next.KernelsTracedFrom = Pending.KernelsTracedFrom;
  Next.Calls.assign(Pending.Calls.begin() + static_cast<std::ptrdiff_t>(InScope), Pending.Calls.end());
  // Work the carried calls may still need: their own records, and anything that ended
  // after the earliest of them started (what a wait waited for, what held a launch).
  std::uint64_t Since = UINT64_MAX;
  std::unordered_set<std::uint32_t> Carried;
  for (const ApiCall &C : Next.Calls) {
    Since = std::min(Since, C.Enter);
    Carried.insert(C.Correlation);
  }
  if (Next.Calls.empty()) {
    // No call to wait for: keep only the latest work, as context for calls still running.
    std::uint64_t Latest = 0;
    for (const GpuWork &W : Pending.Work)
      Latest = std::max(Latest, W.End);
    Since = Latest;
  }
  Since = Since > WaitSlackNs ? Since - WaitSlackNs : 0;
  // The carried calls' own records always stay; other work stays as context, bounded even
  // when one long call (a 10 s synchronize) overlaps a flood of kernels: the newest is kept.
  std::vector<GpuWork> Context;
  for (GpuWork &W : Pending.Work) {
    if (Carried.count(W.Correlation))
      Next.Work.push_back(std::move(W));
    else if (W.End >= Since)
      Context.push_back(std::move(W));
  }
  std::size_t MaxContext = Capacity / 4 > Next.Work.size() ? Capacity / 4 - Next.Work.size() : 0;
  if (Context.size() > MaxContext) {
    auto Keep = Context.begin() + static_cast<std::ptrdiff_t>(Context.size() - MaxContext);
    std::nth_element(Context.begin(), Keep, Context.end(),
                     [](const GpuWork &A, const GpuWork &B) { return A.End < B.End; });
    Context.erase(Context.begin(), Keep);
  }
  std::move(Context.begin(), Context.end(), std::back_inserter(Next.Work));
  Pending = std::move(Next);
}

} // namespace syncwatch::runtime
