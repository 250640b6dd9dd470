// The Serialization pass: work on the legacy or a blocking stream held until another stream's work ended
// (syncwatch-default-stream, syncwatch-blocking-stream).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class SerializationPass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
