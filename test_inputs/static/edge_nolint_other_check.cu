// NOLINT comments naming an unrelated check (bugprone-foo) must not silence
// syncwatch: both the same-line NOLINT and the NOLINTNEXTLINE variant are still
// reported. No other stream in the file -> two notes.
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

__global__ void count_nonzero(const float* x, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] != 0.f) atomicAdd(count, 1);
}

int sparsity_count(const float* d_x, int n) {
  int* d_count;
  CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
  // NOLINTNEXTLINE(bugprone-foo)
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int), 0));  // expect: note syncwatch-default-stream
  count_nonzero<<<(n + 255) / 256, 256>>>(d_x, n, d_count);  // NOLINT(bugprone-foo) // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
  int h_count = 0;
  CUDA_CHECK(cudaMemcpy(&h_count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_count));
  return h_count;
}
