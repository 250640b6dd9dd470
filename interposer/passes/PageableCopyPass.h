// The PageableCopy pass: an asynchronous copy whose memcpy record says pageable host memory
// (syncwatch-pageable-async-copy), and whether the same thread synchronized right after it.
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class PageableCopyPass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
