#include "SelfStats.h"

#include "HostClock.h"

#include "../sites/SiteKeys.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <vector>

namespace syncwatch::runtime {
namespace {

struct PerId {
  std::atomic<std::uint64_t> Calls{0}, Ticks{0};
};
struct Totals {
  std::size_t RuntimeIds = 0, DriverIds = 0;
  PerId *Runtime = nullptr, *Driver = nullptr;
  std::atomic<std::uint64_t> Toggles[3] = {};
  std::atomic<std::uint64_t> Buffers{0}, Records{0}, BufferTicks{0};
  std::atomic<std::uint64_t> Drains{0}, DrainTicks{0};
  // Threads that made CUDA calls; their parts are summed at exit (never freed: a thread may
  // still be in a callback then).
  static constexpr int kMaxThreads = 1024;
  std::atomic<HandlerParts *> Threads[kMaxThreads] = {};
  std::atomic<int> ThreadCount{0};
};
// Made once and never destroyed (callbacks can come during exit).
Totals *Stats = nullptr;
thread_local HandlerParts *ThisThread = nullptr;

double nsPerTick() {
  std::uint64_t PerSecond = ticksFor(1'000'000'000);
  return PerSecond ? 1e9 / static_cast<double>(PerSecond) : 1.0;
}

} // namespace

void enableSelfStats(std::size_t RuntimeIds, std::size_t DriverIds) {
  if (Stats)
    return;
  auto *T = new Totals;
  T->RuntimeIds = RuntimeIds;
  T->DriverIds = DriverIds;
  T->Runtime = new PerId[RuntimeIds];
  T->Driver = new PerId[DriverIds];
  Stats = T;
}

bool selfStatsOn() { return Stats != nullptr; }

void countCallback(CallbackKey Key, bool Entry, std::uint64_t Ticks) {
  PerId *Row = nullptr;
  std::uint32_t Id = indexOf(Key);
  if (domainOf(Key) == ApiDomain::Runtime && Id < Stats->RuntimeIds)
    Row = &Stats->Runtime[Id];
  else if (domainOf(Key) == ApiDomain::Driver && Id < Stats->DriverIds)
    Row = &Stats->Driver[Id];
  if (!Row)
    return;
  if (Entry)
    Row->Calls.fetch_add(1, std::memory_order_relaxed);
  Row->Ticks.fetch_add(Ticks, std::memory_order_relaxed);
}

HandlerParts *threadHandlerParts() {
  if (!ThisThread) {
    int Slot = Stats->ThreadCount.fetch_add(1, std::memory_order_relaxed);
    if (Slot >= Totals::kMaxThreads)
      return nullptr;  // beyond that, threads are counted in the callbacks only
    ThisThread = new HandlerParts;
    Stats->Threads[Slot].store(ThisThread, std::memory_order_release);
  }
  return ThisThread;
}

void countToggle(Toggle T) { Stats->Toggles[static_cast<int>(T)].fetch_add(1, std::memory_order_relaxed); }

void countActivityBuffer(std::size_t Records, std::uint64_t Ticks) {
  Stats->Buffers.fetch_add(1, std::memory_order_relaxed);
  Stats->Records.fetch_add(Records, std::memory_order_relaxed);
  Stats->BufferTicks.fetch_add(Ticks, std::memory_order_relaxed);
}

void countDrain(std::uint64_t Ticks) {
  Stats->Drains.fetch_add(1, std::memory_order_relaxed);
  Stats->DrainTicks.fetch_add(Ticks, std::memory_order_relaxed);
}

std::string selfStatsText(std::string_view (*Name)(CallbackKey)) {
  if (!Stats)
    return "";
  const double Ns = nsPerTick();
  auto Ms = [&](std::uint64_t Ticks) { return static_cast<double>(Ticks) * Ns / 1e6; };
  struct Row {
    std::string_view Name;
    std::uint64_t Calls, Ticks;
  };
  std::vector<Row> Rows;
  std::uint64_t Callbacks = 0, CallbackTicks = 0;
  auto Collect = [&](ApiDomain D, PerId *Ids, std::size_t N) {
    for (std::size_t I = 0; I < N; ++I) {
      std::uint64_t C = Ids[I].Calls.load(), T = Ids[I].Ticks.load();
      if (!C)
        continue;
      Callbacks += C;
      CallbackTicks += T;
      Rows.push_back({Name(callbackKey(D, static_cast<std::uint32_t>(I))), C, T});
    }
  };
  Collect(ApiDomain::Runtime, Stats->Runtime, Stats->RuntimeIds);
  Collect(ApiDomain::Driver, Stats->Driver, Stats->DriverIds);
  std::sort(Rows.begin(), Rows.end(), [](const Row &A, const Row &B) { return A.Calls > B.Calls; });
  HandlerParts Sum;
  int Threads = std::min(Stats->ThreadCount.load(), Totals::kMaxThreads);
  for (int I = 0; I < Threads; ++I)
    if (const HandlerParts *P = Stats->Threads[I].load(std::memory_order_acquire)) {
      Sum.Filter += P->Filter;
      Sum.Key += P->Key;
      Sum.Record += P->Record;
      Sum.SlowPath += P->SlowPath;
      Sum.SlowCalls += P->SlowCalls;
      Sum.Calls += P->Calls;
    }
  std::string Out;
  char Line[512];
  auto Add = [&](const char *Fmt, auto... Args) {
    std::snprintf(Line, sizeof Line, Fmt, Args...);
    Out += Line;
  };
  Add("syncwatch stats: %llu callbacks, %.3f ms in syncwatch's handlers (%.0f ns a callback), %d threads\n",
      static_cast<unsigned long long>(Callbacks), Ms(CallbackTicks),
      Callbacks ? Ms(CallbackTicks) * 1e6 / static_cast<double>(Callbacks) : 0.0, Threads);
  Add("  recorded %llu calls: filter %.3f ms, site key %.3f ms, ring %.3f ms; slow path %llu times, %.3f ms\n",
      static_cast<unsigned long long>(Sum.Calls), Ms(Sum.Filter), Ms(Sum.Key), Ms(Sum.Record),
      static_cast<unsigned long long>(Sum.SlowCalls), Ms(Sum.SlowPath));
  SiteKeyStats K = siteKeyStats();
  Add("  site keys: %u learned, %u stacks unkeyable, %u unstable frames, %u keys; fast-path misses: "
      "python %llu, start %llu, unstable %llu, chain %llu\n",
      K.Learned, K.Unkeyable, K.UnstableFrames, K.Keys, static_cast<unsigned long long>(K.Misses[0]),
      static_cast<unsigned long long>(K.Misses[1]), static_cast<unsigned long long>(K.Misses[2]),
      static_cast<unsigned long long>(K.Misses[3]));
  Add("  launch callbacks turned on %llu times, off %llu times; kernel tracing turned on %llu times\n",
      static_cast<unsigned long long>(Stats->Toggles[0].load()), static_cast<unsigned long long>(Stats->Toggles[1].load()),
      static_cast<unsigned long long>(Stats->Toggles[2].load()));
  Add("  activity: %llu buffers, %llu records, %.3f ms; drainer: %llu drains, %.3f ms\n",
      static_cast<unsigned long long>(Stats->Buffers.load()), static_cast<unsigned long long>(Stats->Records.load()),
      Ms(Stats->BufferTicks.load()), static_cast<unsigned long long>(Stats->Drains.load()), Ms(Stats->DrainTicks.load()));
  for (std::size_t I = 0; I < Rows.size() && I < 12; ++I)
    Add("  %-40.*s %10llu calls %10.3f ms\n", static_cast<int>(Rows[I].Name.size()), Rows[I].Name.data(),
        static_cast<unsigned long long>(Rows[I].Calls), Ms(Rows[I].Ticks));
  return Out;
}

} // namespace syncwatch::runtime
