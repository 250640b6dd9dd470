// The clock of the fast path. A call's entry and exit are read as raw ticks - the TSC where
// it is invariant (10 ns a read here, against 35 ns for cuptiGetTimestamp) - and turned
// into CUPTI's nanoseconds when a batch of records is handed to the engine: between two
// anchors (a tick and a CUPTI time read together) a tick is placed by linear interpolation,
// so the conversion follows CUPTI's clock, NTP slewing included, to within the drift over
// one batch. Without an invariant TSC the ticks are CLOCK_MONOTONIC_RAW nanoseconds,
// converted the same way.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace syncwatch::runtime {

namespace host_clock_detail {
extern bool UseTsc;
std::uint64_t monotonicNs();
} // namespace host_clock_detail

inline std::uint64_t hostTicks() {
#if defined(__x86_64__)
  if (host_clock_detail::UseTsc)
    return __rdtsc();
#endif
  return host_clock_detail::monotonicNs();
}

// Reference: the clock the GPU records use (cuptiGetTimestamp). Calibrates the tick rate
// (about 0.2 ms) and takes the first anchor. Once, before the first tick is read.
void startHostClock(std::uint64_t (*ReferenceNs)());

// Ticks that make up Ns, by the calibrated rate (the fast path's threshold test).
std::uint64_t ticksFor(std::uint64_t Ns);

// Converts ticks read before now into reference nanoseconds: takes a new anchor and
// interpolates between it and the previous one. Not thread-safe: called under one lock.
class TickConverter {
public:
  static TickConverter anchorNow();
  std::uint64_t toNs(std::uint64_t Ticks) const;

private:
  std::uint64_t T0 = 0, N0 = 0;
  double NsPerTick = 1.0;
};

} // namespace syncwatch::runtime
