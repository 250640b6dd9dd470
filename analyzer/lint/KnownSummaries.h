// The summaries syncwatch-lint's first phase has so far, shared by its workers: other
// shards' (--summaries) from the start, then each unit's as its analysis ends. A unit whose
// parse ends is judged a second time at once with its slice of them (UnitOptions::
// KnownSlices), so the cross-unit phase parses again only the units whose slice changed
// after their parse: those analyzed before the units they call or are called by with work
// in flight (UnitOrder.h takes the likely callees first).
#pragma once

#include "../unit/UnitRun.h"

#include "syncwatch/unit_summary.h"

#include <mutex>
#include <optional>

namespace syncwatch {

class KnownSummaries {
public:
  void add(const UnitSummary &U);
  // The slice of what is known that a unit of summary U would be judged with in the
  // cross-unit phase (SummaryIndex::restrictedTo); nullopt when it is empty.
  std::optional<KnownSlice> sliceFor(const UnitSummary &U) const;

private:
  mutable std::mutex M;
  SummaryIndex Index;
};

} // namespace syncwatch
