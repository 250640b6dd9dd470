// Multi-GPU warm-up: the per-device loop forces context creation with cudaFree(0) and
// cudaFree(nullptr) while queuing a warm-up kernel on each device's stream. Freeing a null
// pointer does not synchronize (measured) -> no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void touch(float* scratch, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) scratch[i] = 0.f;
}

int main() {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int n = 1 << 20;
  std::vector<cudaStream_t> streams(devices);
  std::vector<float*> scratch(devices);
  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMalloc(&scratch[d], n * sizeof(float)));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking));
  }

  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaFree(0));  // make sure the primary context exists
    touch<<<(n + 255) / 256, 256, 0, streams[d]>>>(scratch[d], n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFree(nullptr));
  }

  for (int d = 0; d < devices; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaStreamSynchronize(streams[d]));
    CUDA_CHECK(cudaFree(scratch[d]));
    CUDA_CHECK(cudaStreamDestroy(streams[d]));
  }
  printf("warmed up %d device(s)\n", devices);
  return 0;
}
