// One window's lookups, built once per window by the engine and shared by every pass: the
// in-scope calls by correlation id, the GPU work by start and by end, each call's next call
// on its thread, and each call's own first work.
#pragma once

#include "../events/EventLog.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace syncwatch::runtime {

struct WindowIndex {
  std::size_t InScope;        // W.Calls[0, InScope) are judged in this window
  std::unordered_map<std::uint32_t, const ApiCall *> ByCorrelation;  // in-scope calls only
  std::vector<const GpuWork *> ByEnd, ByStart;
  std::vector<const ApiCall *> NextOnThread;  // per call: the same thread's next call
  std::unordered_map<std::uint32_t, const GpuWork *> FirstOwn;  // a call's own work that started first
  WindowIndex(const EventLog &W, std::size_t Scope) : InScope(std::min(Scope, W.Calls.size())) {
    for (std::size_t I = 0; I < InScope; ++I)
      ByCorrelation[W.Calls[I].Correlation] = &W.Calls[I];
    for (const GpuWork &G : W.Work) {
      ByEnd.push_back(&G);
      auto [It, New] = FirstOwn.try_emplace(G.Correlation, &G);
      if (!New && G.Start < It->second->Start)
        It->second = &G;
    }
    ByStart = ByEnd;
    std::sort(ByEnd.begin(), ByEnd.end(), [](const GpuWork *A, const GpuWork *B) { return A->End < B->End; });
    std::sort(ByStart.begin(), ByStart.end(), [](const GpuWork *A, const GpuWork *B) { return A->Start < B->Start; });
    // Calls arrive in the order they returned, and one thread's calls do not overlap.
    NextOnThread.assign(W.Calls.size(), nullptr);
    std::unordered_map<std::uint64_t, std::size_t> Last;
    for (std::size_t I = 0; I < W.Calls.size(); ++I) {
      auto [It, New] = Last.try_emplace(W.Calls[I].Thread, I);
      if (!New) {
        NextOnThread[It->second] = &W.Calls[I];
        It->second = I;
      }
    }
  }
  const ApiCall *next(const EventLog &W, const ApiCall &C) const { return NextOnThread[&C - W.Calls.data()]; }

  // Whether C waited for nothing but its own GPU work: its work started as soon as it
  // was issued, or no other work ended between its entry and its work's start. False
  // when C issued no recorded work.
  bool ownWorkOnly(const ApiCall &C, std::uint64_t SlackNs) const {
    auto Own = FirstOwn.find(C.Correlation);
    if (Own == FirstOwn.end())
      return false;
    std::uint64_t Start = Own->second->Start;
    if (Start <= C.Enter + SlackNs)
      return true;
    auto It = std::lower_bound(ByEnd.begin(), ByEnd.end(), C.Enter,
                               [](const GpuWork *G, std::uint64_t T) { return G->End < T; });
    for (; It != ByEnd.end() && (*It)->End <= Start + SlackNs; ++It)
      if ((*It)->Correlation != C.Correlation)
        return false;
    return true;
  }
};

} // namespace syncwatch::runtime
