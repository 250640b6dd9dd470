// syncwatch-capture-breaking-call: a call that breaks a CUDA graph capture - a wait, a
// legacy-stream use, an allocation or a pageable copy between the capture's begin and end.
// docs/rules/syncwatch-capture-breaking-call.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class CaptureBreakingCallCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
