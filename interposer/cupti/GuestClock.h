// CUPTI's clock when a profiler sharing it brings its own. Kineto (torch.profiler) calls
// cuptiActivityRegisterTimestampCallback when it starts tracing, and from then on every CUPTI
// time - cuptiGetTimestamp, and the activity records made after - is read from the profiler's
// clock (torch 2.11: the steady clock, seconds since boot) instead of CUPTI's own (nanoseconds
// since the epoch). Seen on an H100 (tests/gpu/profiler_steps.py): after the profiler's first
// active step, syncwatch's step marks and 192 of 1,914 kernel records were 1.8e18 ns off the
// calls, so those steps held none of their calls and those kernels none of their launches.
//
// syncwatch keeps CUPTI's own clock: its recordings, host clock anchors and reports use it. The
// offset between the two clocks is read when the profiler registers its source, and every
// CUPTI time read after is put back by it: a cuptiGetTimestamp always (it is read now); an
// activity record by which of its two readings lies near now, as records made before the
// switch can be delivered after it.
#pragma once

#include <atomic>
#include <cstdint>

namespace syncwatch::runtime {

class GuestClock {
public:
  // The guest's source is about to replace CUPTI's: OwnNow and GuestNow read together.
  void switched(std::uint64_t OwnNow, std::uint64_t GuestNow);
  bool active() const { return Switched.load(std::memory_order_acquire); }
  // A cuptiGetTimestamp read, in syncwatch's clock.
  std::uint64_t ownNow(std::uint64_t CuptiNow) const;
  // An activity record's time (0: none), in syncwatch's clock; OwnNow: syncwatch's clock now.
  std::uint64_t ownRecordTime(std::uint64_t RecordNs, std::uint64_t OwnNow) const;

  // Clocks this far apart cannot be mistaken for each other: a reading is in the one near
  // where syncwatch's clock is. Closer clocks (a profiler that reads CUPTI's own clock, or
  // the realtime clock) are taken as the guest's after the switch, and records made before it
  // but delivered after are off by the offset (under this bound).
  static constexpr std::uint64_t kFarApartNs = 3600ull * 1000000000ull;

private:
  std::atomic<std::int64_t> Offset{0};  // own = guest + Offset
  std::atomic<bool> Switched{false};
  mutable std::atomic<std::uint64_t> LastOwn{0};  // the last ownNow: where syncwatch's clock is
};

// The process's one (CuptiExports.cpp writes it, Subscriber and RecordConversion read it).
GuestClock &guestClock();

} // namespace syncwatch::runtime
