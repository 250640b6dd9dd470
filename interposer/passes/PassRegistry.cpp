#include "PassRegistry.h"

#include "CapturePass.h"
#include "HostWaitPass.h"
#include "PageableCopyPass.h"
#include "PriorityInversionPass.h"
#include "SerializationPass.h"
#include "TorchCurrentStreamPass.h"

#include "syncwatch/catalogue.h"

#include <cstdlib>

namespace syncwatch::runtime {

const WindowPass &passOf(RuntimePass Pass) {
  switch (Pass) {
#define SYNCWATCH_RUNTIME_PASS(Name, Summary)                                                                       \
  case RuntimePass::Name: {                                                                                         \
    static const auto *P = new Name##Pass;                                                                          \
    return *P;                                                                                                      \
  }
#include "../../rules/runtime_passes.def"
#undef SYNCWATCH_RUNTIME_PASS
  case RuntimePass::None:
    break;
  }
  std::abort();  // RuntimePass::None names no pass
}

const std::vector<const WindowPass *> &cataloguePasses() {
  static const auto *Passes = [] {
    auto *V = new std::vector<const WindowPass *>;
    for (const RuntimePassInfo &P : allRuntimePasses()) {
      bool Named = false;
      for (const RuleInfo &R : allRules())
        Named = Named || R.Pass == P.Pass;
      if (Named)
        V->push_back(&passOf(P.Pass));
    }
    return V;
  }();
  return *Passes;
}

} // namespace syncwatch::runtime
