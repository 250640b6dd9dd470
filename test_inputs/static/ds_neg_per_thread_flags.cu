// clang-flags: -DCUDA_API_PER_THREAD_DEFAULT_STREAM
// nvcc-flags: --default-stream per-thread
// Per-thread default-stream build: stream-less launches, an omitted-stream
// cudaMemcpyAsync and cudaEventRecord(ev) all go to the per-thread stream -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void prefix_scale(float* x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = s * x[i] + 1.f;
}

__global__ void clip(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fminf(x[i], 100.f);
}

float process_shard(float* h_shard, float* d_shard, int n) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  CUDA_CHECK(cudaMemcpyAsync(d_shard, h_shard, n * sizeof(float), cudaMemcpyHostToDevice));
  prefix_scale<<<(n + 255) / 256, 256>>>(d_shard, n, 0.5f);
  clip<<<(n + 255) / 256, 256, 0>>>(d_shard, n);
  CUDA_CHECK(cudaMemcpyAsync(h_shard, d_shard, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}
