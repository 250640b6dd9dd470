// syncwatch-implicit-sync: calls that wait for the whole device while stream work may be
// in flight (inside a loop that issues stream work, or after unsynchronized stream work).
// docs/rules/syncwatch-implicit-sync.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class ImplicitSyncCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
