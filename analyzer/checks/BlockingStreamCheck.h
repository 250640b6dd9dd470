// syncwatch-blocking-stream: a stream created blocking in a unit that issues
// legacy-default-stream work. docs/rules/syncwatch-blocking-stream.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class BlockingStreamCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
