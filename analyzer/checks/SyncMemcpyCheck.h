// syncwatch-sync-memcpy: synchronous copies and memsets in code that uses streams.
// docs/rules/syncwatch-sync-memcpy.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class SyncMemcpyCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
