// syncwatch-sync-in-loop: explicit synchronization inside a loop that issues stream work
// every iteration.
// docs/rules/syncwatch-sync-in-loop.md
#pragma once

#include "../core/FunctionWorkCheck.h"

namespace syncwatch {

class SyncInLoopCheck : public FunctionWorkCheck {
public:
  using FunctionWorkCheck::FunctionWorkCheck;
  void onEndOfTranslationUnit() override;
};

} // namespace syncwatch
