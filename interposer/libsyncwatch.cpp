// libsyncwatch.so: where the library starts. Under LD_PRELOAD, its constructor; under
// CUDA_INJECTION64_PATH, CUDA's injection entry point. Everything else is in the folders
// below: cupti/ (the subscription), recorder/, filter/, sites/, engine/, events/.
#include "cupti/Subscriber.h"
#include "recorder/ApiHandler.h"
#include "recorder/Config.h"
#include "sites/CudaPresence.h"
#include "sites/PythonStacks.h"
#include "sites/TorchGraphHints.h"
#include "sites/TorchProfilerSteps.h"

#include <fnmatch.h>

#include <string>

extern "C" {
// CUDA_INJECTION64_PATH=libsyncwatch.so: the driver calls this when CUDA initializes.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  syncwatch::runtime::start();
  return 1;
}
}

// LD_PRELOAD=libsyncwatch.so: start when the library loads - in a CUDA program. CUPTI adds
// a thread as soon as a callback is enabled (CudaPresence.h), so a process that has no CUDA
// yet gets none: a Python process starts capture when torch or a CUDA extension loads
// CUDA; `syncwatch run` also sets CUDA_INJECTION64_PATH, by which the driver starts it at
// cuInit in any other process that loads CUDA later (a plugin dlopen'ed by a C++ program).
__attribute__((constructor)) static void syncwatchOnLoad() {
  // (Bad values are said by start(), at the first CUDA event: never in a non-CUDA process.)
  std::string Ignored;
  syncwatch::runtime::Config Cfg = syncwatch::runtime::readConfig(Ignored);
  if (Cfg.Disable)
    return;
  // NVTX reads its injection path at the program's first NVTX call: set before main.
  syncwatch::runtime::prepareSteps(Cfg.StepName);
  if (syncwatch::runtime::cudaProgramAtLoad()) {
    syncwatch::runtime::start();
    return;
  }
  bool Stacks = Cfg.Python;
  syncwatch::runtime::watchForPython(Stacks, [] { syncwatch::runtime::start(); });
  // torch.compile(mode="reduce-overhead")'s reasons for skipping CUDA graphs, at the Python line.
  syncwatch::runtime::followTorchGraphHints([](syncwatch::runtime::TorchGraphHint Kind, std::string_view Message) {
    syncwatch::runtime::noteTorchGraphHint(Kind == syncwatch::runtime::TorchGraphHint::Skipped, Message);
  });
  // SYNCWATCH_STEP=ProfilerStep: torch.profiler's prof.step() ends each step.
  if (!Cfg.StepName.empty() && ::fnmatch(Cfg.StepName.c_str(), syncwatch::runtime::kProfilerStepName, 0) == 0)
    syncwatch::runtime::followTorchProfilerSteps([](syncwatch::runtime::ProfilerStepMark Mark) {
      syncwatch::runtime::markProfilerStep(Mark == syncwatch::runtime::ProfilerStepMark::Next);
    });
}
