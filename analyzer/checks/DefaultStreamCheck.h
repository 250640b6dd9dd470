// syncwatch-default-stream: work issued on the legacy default stream.
// docs/rules/syncwatch-default-stream.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class DefaultStreamCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
