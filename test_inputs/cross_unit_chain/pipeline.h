// A small training program in four files that see each other only through this header:
// trainer.cu drives the steps, pipeline.cu and checkpoint.cpp pass buffers on, and memory.cu
// owns the device allocations. No file alone shows the stall: trainer.cu's kernels are still
// running when, three files away, memory.cu frees a buffer with cudaFree.
#pragma once
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) report_error(err_, __FILE__, __LINE__);                          \
  } while (0)

void report_error(cudaError_t err, const char *file, int line);

// memory.cu
float *device_alloc(int n);
void device_release(float *p);          // cudaFree, through a helper of memory.cu
void device_release_checked(float *p);  // cudaFree in CUDA_CHECK
void staging_release(float *p);         // cudaFreeHost

// pipeline.cu
struct Stage {
  float *activations = nullptr;
  int n = 0;
  void retire();      // gives activations back (memory.cu)
  void retire_all();  // drains the device first, then gives them back
};
void end_of_epoch(Stage &s);

// checkpoint.cpp: plain C++, no CUDA call of its own
void save_and_trim(Stage &s);
void trim_after_sync(Stage &s);

// A header helper every unit compiles: defined (and analyzed) where it is used.
template <typename T> inline void retire_each(T *stages, int count) {
  for (int i = 0; i < count; ++i)
    stages[i].retire();
}
