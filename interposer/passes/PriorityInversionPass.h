// The PriorityInversion pass: a kernel of a high-priority stream held behind lower-priority kernels
// (syncwatch-priority-inversion).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class PriorityInversionPass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
