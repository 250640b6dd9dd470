// What the engine's passes judge by: thresholds and slacks, from SYNCWATCH_* settings.
#pragma once

#include <cstdint>

namespace syncwatch::runtime {

struct EngineConfig {
  std::uint64_t HostWaitThresholdNs = 1'000'000;  // SYNCWATCH_THRESHOLD_MS, default 1 ms
  // GPU work that ends this close before a call returns is what the call waited for, and
  // work that starts this close after another stream's work ended was held by it.
  std::uint64_t SlackNs = 10'000;
  // A call waited for GPU work when that work ended at most this long before it returned
  // (cudaFree unmaps memory for a few hundred microseconds after the device went idle).
  std::uint64_t WaitSlackNs = 1'000'000;
  // Work that starts less than this after it was issued was not held.
  std::uint64_t MinHeldNs = 20'000;
  // A site whose every occurrence waited for its own work only is a warning when it ran
  // more than once (a hot path) or took at least this share of the run; else a note.
  double HotShare = 0.05;
  // CUPTI hands a call's activity records over this long after the call at the latest
  // (flushed every 100 ms, buffers of 1 MiB): a windowed call whose records are not in yet
  // is kept waiting for them this long (EventWindow).
  std::uint64_t RecordLagNs = 1'000'000'000;
  // Another tool held CUPTI: calls were timed at their entry points, and no GPU record can
  // say what a wait waited for (Recorder::setWithoutCupti).
  bool SeenWithoutCupti = false;
};

} // namespace syncwatch::runtime
