// syncwatch-sync-in-loop: explicit synchronization inside a loop that issues stream work
// every iteration.
// docs/rules/syncwatch-sync-in-loop.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class SyncInLoopCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
