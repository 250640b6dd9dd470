// The HostWait pass: a call that blocked its thread past the threshold, and the GPU work it waited for (the rule
// is the API's, cuda_api.def's Rule column: implicit sync, sync memcpy, sync in loop...).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class HostWaitPass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
