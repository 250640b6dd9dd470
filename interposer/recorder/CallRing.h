// Per-thread rings of call records: the fast path's only write. A thread appends a
// fixed-size record to its own ring (no lock, no allocation); the Recorder drains every
// ring under its lock - from its drainer thread every 10 ms and when a ring is half full,
// when CUPTI hands over a buffer of GPU records, and at exit. A thread whose ring is full
// (the drainer fell behind) drains it itself.
#pragma once

#include "../events/CaptureNote.h"

#include <atomic>
#include <cstdint>
#include <string_view>

namespace syncwatch::runtime {

struct CallRecord {
  std::uint64_t Enter = 0, Exit = 0;  // HostClock ticks
  std::uint64_t Thread = 0;
  std::string_view Api;               // the catalogue's own string
  std::uint32_t Correlation = 0;
  std::uint32_t Site = 0;
  bool CreatedContext = false;
  // A launch onto a default stream while PyTorch's current stream was CurrentStream (its
  // CUPTI stream id; UINT32_MAX when CUPTI could not name it). Fits in the padding.
  bool OffTorchStream = false;
  // OffTorchStream: PyTorch's current stream. A graph capture's call (never a launch onto a
  // default stream): its note's number (internCaptureNote; 0 none). Shared, to keep a ring
  // at 56 bytes a call.
  std::uint32_t CurrentStream = 0;
};
static_assert(sizeof(CallRecord) == 56, "the ring's memory is Capacity records of 56 bytes");

// Calls the fast path did not record, counted per (site, API) on the thread that made them
// (issue 37: every call site that ran has a count, traced or not). Only the owning thread
// writes, with plain relaxed stores; the Recorder reads at exit. An entry is published by
// its Site (0: free) after its API is written. A thread with more distinct (site, API)
// pairs than fit spills into the Recorder's own table (Recorder::countSpilled, under its lock).
class SiteCounters {
public:
  static constexpr std::uint32_t Slots = 1024;  // 32 KiB a thread
  struct Entry {
    std::atomic<std::uint32_t> Site{0};
    const char *Api = nullptr;   // the catalogue's own string (static storage)
    std::uint32_t ApiSize = 0;
    std::atomic<std::uint64_t> Calls{0}, Judged{0};
  };
  // False when the table is full (the caller spills the call elsewhere).
  bool add(std::uint32_t Site, std::string_view Api, bool Judged) {  // Api: static storage
    std::uint32_t H = (Site * 0x9E3779B1u) ^ static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(Api.data()) >> 3);
    for (std::uint32_t Probe = 0; Probe < 16; ++Probe) {
      Entry &E = Table[(H + Probe) % Slots];
      std::uint32_t S = E.Site.load(std::memory_order_relaxed);
      if (S == 0) {
        E.Api = Api.data();
        E.ApiSize = static_cast<std::uint32_t>(Api.size());
        E.Site.store(Site, std::memory_order_release);
        S = Site;
      }
      if (S == Site && E.Api == Api.data()) {
        E.Calls.store(E.Calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        if (Judged)
          E.Judged.store(E.Judged.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return true;
      }
    }
    return false;
  }
  // The reader (at exit): each published entry's counts so far.
  template <typename F> void forEach(F &&Each) const {
    for (const Entry &E : Table)
      if (std::uint32_t S = E.Site.load(std::memory_order_acquire))
        Each(S, std::string_view(E.Api, E.ApiSize), E.Calls.load(std::memory_order_relaxed),
             E.Judged.load(std::memory_order_relaxed));
  }

private:
  Entry Table[Slots];
};

class CallRing {
public:
  static constexpr std::uint32_t Capacity = 4096;  // 224 KiB a thread

  // The producer (the owning thread). False when full: the caller drains, then retries.
  bool push(const CallRecord &R) {
    std::uint32_t H = Head.load(std::memory_order_relaxed);
    if (H - Tail.load(std::memory_order_acquire) >= Capacity)
      return false;
    Slots[H % Capacity] = R;
    Head.store(H + 1, std::memory_order_release);
    return true;
  }
  std::uint32_t size() const { return Head.load(std::memory_order_acquire) - Tail.load(std::memory_order_acquire); }

  // The consumer (under the Recorder's lock).
  template <typename Sink> void drain(Sink &&S) {
    std::uint32_t T = Tail.load(std::memory_order_relaxed), H = Head.load(std::memory_order_acquire);
    for (; T != H; ++T)
      S(Slots[T % Capacity]);
    Tail.store(T, std::memory_order_release);
  }

  std::atomic<bool> Owned{false};
  // The calls this ring's threads made but did not record (see SiteCounters).
  SiteCounters Counted;

private:
  CallRecord Slots[Capacity];
  alignas(64) std::atomic<std::uint32_t> Head{0};
  alignas(64) std::atomic<std::uint32_t> Tail{0};
};

// This thread's ring: claimed from a thread that has exited, or made (once per thread).
// Null when no ring can be had (more than kMaxRings threads at once): the caller then
// hands its record to the Recorder directly.
CallRing *threadRing();

constexpr std::uint32_t kMaxRings = 1024;
// Every ring made so far (a ring is never freed: its thread's records may still be in it).
template <typename F> void forEachRing(F &&Each);

namespace call_ring_detail {
extern std::atomic<CallRing *> Rings[kMaxRings];
extern std::atomic<std::uint32_t> RingCount;
} // namespace call_ring_detail

template <typename F> void forEachRing(F &&Each) {
  std::uint32_t N = call_ring_detail::RingCount.load(std::memory_order_acquire);
  for (std::uint32_t I = 0; I < N && I < kMaxRings; ++I)
    if (CallRing *R = call_ring_detail::Rings[I].load(std::memory_order_acquire))
      Each(*R);
}

} // namespace syncwatch::runtime
