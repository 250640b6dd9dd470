// Data-parallel step across GPUs: one loop queues each device's kernel on its stream, then a
// barrier loop calls cudaSetDevice + cudaDeviceSynchronize per device. The barrier loop issues
// no work itself -> no sync-in-loop finding (and nothing else).
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

struct Replica {
  int device;
  cudaStream_t stream;
  float* params;
  float* grads;
  int n;
};

__global__ void apply_grads(float* p, const float* g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= lr * g[i];
}

void step_all(std::vector<Replica>& replicas, float lr) {
  for (Replica& r : replicas) {
    CUDA_CHECK(cudaSetDevice(r.device));
    apply_grads<<<(r.n + 255) / 256, 256, 0, r.stream>>>(r.params, r.grads, r.n, lr);
    CUDA_CHECK(cudaGetLastError());
  }
  for (const Replica& r : replicas) {
    CUDA_CHECK(cudaSetDevice(r.device));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}
