// nvcc-flags:
// plain-clang-flags:
// Unqualified min/max/umin in host code: CUDA's math_functions.h declares them
// __host__ __device__ for nvcc; clang's wrapper has the __device__ ones only.
#include <cstddef>

__global__ void fill(float *p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = min(v, 1.f);
}

void launch(float *d, int n, size_t smem_limit, cudaStream_t s) {
  int threads = max(32, min(n, 1024));
  unsigned blocks = umin(65535u, static_cast<unsigned>((n + threads - 1) / threads));
  size_t smem = min(smem_limit, static_cast<size_t>(threads) * sizeof(float));
  fill<<<blocks, threads, smem, 0>>>(d, n, 0.5f);  // expect: warning syncwatch-default-stream
  fill<<<blocks, threads, smem, s>>>(d, n, 0.25f);
}
