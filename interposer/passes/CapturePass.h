// The Capture pass: a call that broke a CUDA graph capture (syncwatch-capture-breaking-call),
// from the notes the recorder tied to each capture's calls while the program ran
// (events/CaptureNote.h): the call that failed first with a capture error, and the end of a
// capture that failed with no such call seen (an unjoined fork, a call syncwatch does not
// follow).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {

class CapturePass final : public WindowPass {
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
};

} // namespace syncwatch::runtime
