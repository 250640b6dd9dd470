#include "HostClock.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace syncwatch::runtime {
namespace host_clock_detail {
bool UseTsc = false;
std::uint64_t monotonicNs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC_RAW, &T);
  return static_cast<std::uint64_t>(T.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(T.tv_nsec);
}
} // namespace host_clock_detail

namespace {
std::uint64_t (*Reference)() = nullptr;
std::atomic<double> RatePerTick{1.0};  // read by the fast path, written under the batch lock
std::uint64_t AnchorTicks = 0, AnchorNs = 0;

// constant_tsc and nonstop_tsc: the TSC ticks at one rate in every P- and C-state, on
// every core (Linux reports both only when they hold).
bool invariantTsc() {
#if defined(__x86_64__)
  FILE *F = std::fopen("/proc/cpuinfo", "r");
  if (!F)
    return false;
  char Line[4096];
  bool Constant = false, NonStop = false;
  while (std::fgets(Line, sizeof Line, F)) {
    if (std::strncmp(Line, "flags", 5) != 0)
      continue;
    Constant = std::strstr(Line, " constant_tsc") != nullptr;
    NonStop = std::strstr(Line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(F);
  return Constant && NonStop;
#else
  return false;
#endif
}

// A tick and a reference time read as close together as the two reads allow.
void pair(std::uint64_t &Ticks, std::uint64_t &Ns) {
  std::uint64_t A = hostTicks();
  Ns = Reference();
  std::uint64_t B = hostTicks();
  Ticks = A + (B - A) / 2;
}
} // namespace

void startHostClock(std::uint64_t (*ReferenceNs)()) {
  Reference = ReferenceNs;
  host_clock_detail::UseTsc = invariantTsc();
  std::uint64_t T0, N0, T1, N1;
  pair(T0, N0);
  do
    pair(T1, N1);
  while (N1 - N0 < 200'000 && N1 >= N0);
  RatePerTick.store(T1 > T0 && N1 > N0 ? static_cast<double>(N1 - N0) / static_cast<double>(T1 - T0) : 1.0);
  AnchorTicks = T1;
  AnchorNs = N1;
}

std::uint64_t ticksFor(std::uint64_t Ns) {
  return static_cast<std::uint64_t>(static_cast<double>(Ns) / RatePerTick.load(std::memory_order_relaxed));
}

TickConverter TickConverter::anchorNow() {
  TickConverter C;
  std::uint64_t T1, N1;
  pair(T1, N1);
  C.T0 = AnchorTicks;
  C.N0 = AnchorNs;
  // A rate from anchors too close together is all jitter: keep the calibrated one.
  if (T1 > AnchorTicks && N1 > AnchorNs && N1 - AnchorNs >= 1'000'000) {
    C.NsPerTick = static_cast<double>(N1 - AnchorNs) / static_cast<double>(T1 - AnchorTicks);
    RatePerTick.store(C.NsPerTick, std::memory_order_relaxed);
    AnchorTicks = T1;
    AnchorNs = N1;
  } else {
    C.NsPerTick = RatePerTick.load(std::memory_order_relaxed);
  }
  return C;
}

std::uint64_t TickConverter::toNs(std::uint64_t Ticks) const {
  // The offset from the anchor in double (small), the sum in integers (CUPTI times are
  // about 1.8e18 ns: a double would round them to 256 ns).
  auto Delta = static_cast<std::int64_t>(static_cast<double>(static_cast<std::int64_t>(Ticks - T0)) * NsPerTick);
  auto Ns = static_cast<std::int64_t>(N0) + Delta;
  return Ns <= 0 ? 0 : static_cast<std::uint64_t>(Ns);
}

} // namespace syncwatch::runtime
