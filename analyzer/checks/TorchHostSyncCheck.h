// syncwatch-torch-host-sync: a call inside a PyTorch op that makes the host wait for the GPU.
// docs/rules/syncwatch-torch-host-sync.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class TorchHostSyncCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
};

} // namespace syncwatch
