// SYNCWATCH_STATS=1: what syncwatch itself did in a process and what that cost, on stderr
// at exit. When a program runs slower under syncwatch, this tells syncwatch's own work (the
// handlers, the drainer, the activity buffers) from CUPTI's, and says which callbacks fired
// how often and whether launch callbacks or kernel tracing were on
// (bench/runtime_overhead.sh prints it for its PyTorch loop). Off, it costs one predictable
// branch per callback.
#pragma once

#include "HandlerParts.h"

#include "../filter/ApiCallback.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace syncwatch::runtime {

// Once, at start, before any callback (RuntimeIds/DriverIds: the domains' id counts).
void enableSelfStats(std::size_t RuntimeIds, std::size_t DriverIds);
bool selfStatsOn();

// One callback (entry or exit) that took Ticks inside syncwatch.
void countCallback(CallbackKey Key, bool Entry, std::uint64_t Ticks);
// This thread's HandlerParts, made at its first callback and summed at exit.
HandlerParts *threadHandlerParts();
enum class Toggle { LaunchesOn, LaunchesOff, KernelsOn };
void countToggle(Toggle T);
// One activity buffer: its records, and the ticks spent turning them into GPU work.
void countActivityBuffer(std::size_t Records, std::uint64_t Ticks);
void countDrain(std::uint64_t Ticks);

// The text printed at exit; Name gives a callback's name (cupti/ asks CUPTI).
std::string selfStatsText(std::string_view (*Name)(CallbackKey));

} // namespace syncwatch::runtime
