#include "CheckRegistry.h"

#include "../checks/BlockingStreamCheck.h"
#include "../checks/DefaultStreamCheck.h"

namespace syncwatch {

template <typename T> static CheckFactory factory(RuleId Rule) {
  return {Rule, [](DiagnosticSink &Sink) { return std::make_unique<T>(Sink); }};
}

std::span<const CheckFactory> registeredChecks() {
  static const CheckFactory Checks[] = {
      factory<DefaultStreamCheck>(RuleId::DefaultStream),
      factory<BlockingStreamCheck>(RuleId::BlockingStream),
  };
  return Checks;
}

} // namespace syncwatch
