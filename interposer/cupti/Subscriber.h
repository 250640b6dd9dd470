// The CUPTI session's two entry points, for libsyncwatch.cpp (the library's load-time
// constructor and CUDA's injection entry point).
#pragma once

#include <string>

namespace syncwatch::runtime {

// Subscribes to CUPTI and enables the catalogued callbacks, once per process; says nothing
// until the first CUDA event (or, at exit, why CUPTI could not be used).
void start();

// At load, before the program's first NVTX call (SYNCWATCH_STEP): NVTX pointed at libcupti
// as its injection library (NvtxSteps.h); why steps cannot be seen is said with the
// configuration's messages.
void prepareSteps(const std::string &StepPattern);

// torch.profiler's prof.start()/step() (Next: a step begins, ending the one before) and
// stop() (the last step ends), on the calling thread, now (sites/TorchProfilerSteps.h).
// Nothing before the session follows steps.
void markProfilerStep(bool Next);

} // namespace syncwatch::runtime
