// Where the fast path's time goes, in HostClock ticks, summed per thread by the caller:
// bench/runtime_cost's breakdown and SYNCWATCH_STATS=1's (SelfStats.h).
#pragma once

#include <cstdint>

namespace syncwatch::runtime {

struct HandlerParts {
  std::uint64_t Filter = 0;   // decideAtEntry
  std::uint64_t Key = 0;      // siteOfCall on its fast path (stack slots, Python frame, lookup)
  std::uint64_t Record = 0;   // the ring, and the drains it triggers
  std::uint64_t SlowPath = 0; // siteOfCall's slow path (unwind, learn, intern)
  std::uint64_t SlowCalls = 0, Calls = 0;
};

} // namespace syncwatch::runtime
