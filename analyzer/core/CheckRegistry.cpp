#include "CheckRegistry.h"

#include "../checks/BlockingStreamCheck.h"
#include "../checks/DefaultStreamCheck.h"
#include "../checks/ImplicitSyncCheck.h"
#include "../checks/PageableAsyncCopyCheck.h"
#include "../checks/SyncInLoopCheck.h"
#include "../checks/SyncMemcpyCheck.h"

namespace syncwatch {

template <typename T> static CheckFactory factory(RuleId Rule) {
  return {Rule, [](DiagnosticSink &Sink, const CheckOptions &Options) {
            return std::make_unique<T>(Sink, Options);
          }};
}

std::span<const CheckFactory> registeredChecks() {
  static const CheckFactory Checks[] = {
      factory<DefaultStreamCheck>(RuleId::DefaultStream),
      factory<BlockingStreamCheck>(RuleId::BlockingStream),
      factory<PageableAsyncCopyCheck>(RuleId::PageableAsyncCopy),
      factory<ImplicitSyncCheck>(RuleId::ImplicitSync),
      factory<SyncMemcpyCheck>(RuleId::SyncMemcpy),
      factory<SyncInLoopCheck>(RuleId::SyncInLoop),
  };
  return Checks;
}

} // namespace syncwatch
