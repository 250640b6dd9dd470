// syncwatch-redundant-sync: a sync right before a blocking copy that already waits for the same work.
// docs/rules/syncwatch-redundant-sync.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class RedundantSyncCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
