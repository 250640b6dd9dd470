#include "GuestClock.h"

namespace syncwatch::runtime {

namespace {
std::uint64_t distance(std::uint64_t A, std::uint64_t B) { return A > B ? A - B : B - A; }
std::uint64_t magnitude(std::int64_t V) { return V < 0 ? 0 - static_cast<std::uint64_t>(V) : static_cast<std::uint64_t>(V); }
} // namespace

void GuestClock::switched(std::uint64_t OwnNow, std::uint64_t GuestNow) {
  Offset.store(static_cast<std::int64_t>(OwnNow - GuestNow), std::memory_order_relaxed);
  LastOwn.store(OwnNow, std::memory_order_relaxed);
  Switched.store(true, std::memory_order_release);
}

std::uint64_t GuestClock::ownNow(std::uint64_t CuptiNow) const {
  if (!active())
    return CuptiNow;
  std::int64_t Off = Offset.load(std::memory_order_relaxed);
  std::uint64_t Moved = CuptiNow + static_cast<std::uint64_t>(Off);
  // Far apart: a reading taken in CUPTI's own clock (between the guest's registration and
  // switched(), a few ns) stays as it is.
  std::uint64_t Last = LastOwn.load(std::memory_order_relaxed);
  std::uint64_t Own = magnitude(Off) >= kFarApartNs && distance(CuptiNow, Last) < distance(Moved, Last) ? CuptiNow : Moved;
  LastOwn.store(Own, std::memory_order_relaxed);
  return Own;
}

std::uint64_t GuestClock::ownRecordTime(std::uint64_t RecordNs, std::uint64_t OwnNow) const {
  if (!RecordNs || !active())
    return RecordNs;
  std::int64_t Off = Offset.load(std::memory_order_relaxed);
  std::uint64_t Moved = RecordNs + static_cast<std::uint64_t>(Off);
  if (magnitude(Off) < kFarApartNs)
    return Moved;
  return distance(Moved, OwnNow) < distance(RecordNs, OwnNow) ? Moved : RecordNs;
}

GuestClock &guestClock() {
  static GuestClock *G = new GuestClock;  // never destroyed: read at exit's flush
  return *G;
}

} // namespace syncwatch::runtime
