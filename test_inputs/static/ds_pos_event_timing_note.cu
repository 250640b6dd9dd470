// Classic kernel benchmark: cudaEventRecord(start)/cudaEventRecord(stop) with
// the stream omitted, around launches without a stream. The file uses no other
// stream -> three notes (two event records, one launch).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));         \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 24;
  const int iters = 50;
  float *x, *y;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(y, 0, n * sizeof(float)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start));  // expect: note syncwatch-default-stream
  for (int it = 0; it < iters; ++it) {
    saxpy<<<(n + 511) / 512, 512>>>(n, 2.0f, x, y);  // expect: note syncwatch-default-stream
  }
  CUDA_CHECK(cudaEventRecord(stop));  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaEventSynchronize(stop));

  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  double gbps = 3.0 * n * sizeof(float) * iters / (ms * 1e6);
  printf("saxpy: %.3f ms/iter, %.1f GB/s\n", ms / iters, gbps);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
