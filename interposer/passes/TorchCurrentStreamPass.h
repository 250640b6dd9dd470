// The TorchCurrentStream pass: a launch onto a default stream while PyTorch's current stream was another
// (syncwatch-torch-current-stream).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class TorchCurrentStreamPass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
