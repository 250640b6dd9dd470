// Per-thread default stream "selected" in the source with
// #define CUDA_API_PER_THREAD_DEFAULT_STREAM before <cuda_runtime.h>. It comes too late:
// nvcc (and clang) include cuda_runtime.h before the file's first line, so `nvcc -E`
// still shows cudaMemsetAsync, not cudaMemsetAsync_ptsz. The work really runs on the
// legacy stream -> reported (notes: no other stream here), with a note on the #define.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void init_weights(float* w, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = (i + seed) * 2654435761u;
  w[i] = (h >> 8) * (1.f / 16777216.f) - 0.5f;
}

__global__ void sgd_step(float* w, const float* g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

void train_worker(float* d_w, float* d_grad, int n, int steps, unsigned seed) {
  const int grid = (n + 255) / 256;
  init_weights<<<grid, 256>>>(d_w, n, seed);  // expect: note syncwatch-default-stream
  for (int s = 0; s < steps; ++s) {
    CUDA_CHECK(cudaMemsetAsync(d_grad, 0, n * sizeof(float)));  // expect: note syncwatch-default-stream
    sgd_step<<<grid, 256>>>(d_w, d_grad, n, 1e-3f);  // expect: note syncwatch-default-stream
  }
  CUDA_CHECK(cudaGetLastError());
}
