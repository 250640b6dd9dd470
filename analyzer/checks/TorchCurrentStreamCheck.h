// syncwatch-torch-current-stream: GPU work in a PyTorch op issued off PyTorch's current stream.
// docs/rules/syncwatch-torch-current-stream.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class TorchCurrentStreamCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
