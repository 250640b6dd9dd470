// Says whether libsyncwatch.so would take each file for a CUDA program at load (it has
// GPU code: .nv_fatbin). Used by tests/runtime/preload_test.py: an nvcc-built program is one, a
// shell is not.
#include "../../../interposer/sites/CudaPresence.h"

#include <cstdio>

int main(int argc, char **argv) {
  for (int I = 1; I < argc; ++I)
    std::printf("%s %s\n", syncwatch::runtime::elfHasGpuCode(argv[I]) ? "gpu-code" : "no-gpu-code", argv[I]);
  return 0;
}
