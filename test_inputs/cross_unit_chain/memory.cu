// Device memory: every allocation and release of the program goes through here.
#include "pipeline.h"

#include <cstdio>
#include <cstdlib>

void report_error(cudaError_t err, const char *file, int line) {
  std::fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(err));
  std::abort();
}

float *device_alloc(int n) {
  float *p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
  return p;
}

static void free_now(float *p) {
  cudaFree(p);  // expect: warning syncwatch-implicit-sync (trainer.cu's kernel, through pipeline.cu and checkpoint.cpp)
}

void device_release(float *p) { free_now(p); }

void device_release_checked(float *p) {
  CUDA_CHECK(cudaFree(p));  // expect: warning syncwatch-implicit-sync (trainer.cu's kernel, through a lambda and end_of_epoch)
}

void staging_release(float *p) {
  cudaFreeHost(p);  // silent: only called after the device was drained (trainer.cu)
}
