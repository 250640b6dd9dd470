#include "CheckRegistry.h"

#include "BlockingStreamCheck.h"
#include "DefaultStreamCheck.h"
#include "ImplicitSyncCheck.h"
#include "PageableAsyncCopyCheck.h"
#include "SyncInLoopCheck.h"
#include "SyncMemcpyCheck.h"
#include "RedundantSyncCheck.h"
#include "TorchCurrentStreamCheck.h"
#include "TorchHostSyncCheck.h"
#include "CaptureBreakingCallCheck.h"

namespace syncwatch {

template <typename T> static CheckFactory factory(RuleId Rule) {
  return {Rule, [](const CheckOptionsView &Options) { return std::make_unique<T>(Options); }};
}

std::span<const CheckFactory> registeredChecks() {
  static const CheckFactory Checks[] = {
      factory<DefaultStreamCheck>(RuleId::DefaultStream),
      factory<BlockingStreamCheck>(RuleId::BlockingStream),
      factory<PageableAsyncCopyCheck>(RuleId::PageableAsyncCopy),
      factory<ImplicitSyncCheck>(RuleId::ImplicitSync),
      factory<SyncMemcpyCheck>(RuleId::SyncMemcpy),
      factory<SyncInLoopCheck>(RuleId::SyncInLoop),
      factory<RedundantSyncCheck>(RuleId::RedundantSync),
      factory<TorchCurrentStreamCheck>(RuleId::TorchCurrentStream),
      factory<TorchHostSyncCheck>(RuleId::TorchHostSync),
      factory<CaptureBreakingCallCheck>(RuleId::CaptureBreakingCall),
  };
  return Checks;
}

} // namespace syncwatch
