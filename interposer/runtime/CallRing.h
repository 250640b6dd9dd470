// Per-thread rings of call records: the fast path's only write. A thread appends a
// fixed-size record to its own ring (no lock, no allocation); the Recorder drains every
// ring under its lock - from its drainer thread every 10 ms and when a ring is half full,
// when CUPTI hands over a buffer of GPU records, and at exit. A thread whose ring is full
// (the drainer fell behind) drains it itself.
#pragma once

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
  std::uint32_t CurrentStream = 0;
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
