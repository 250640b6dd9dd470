// Chunked H2D / compute / D2H overlap with two non-blocking streams and an event
// handoff. Every copy, launch, record and wait names a real stream; the zeros are
// shared-memory sizes and wait flags, never streams -> no findings.
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

__global__ void square(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= x[i];
}

int main() {
  const int n = 1 << 24, chunks = 8, chunk = n / chunks;
  float *h, *d;
  CUDA_CHECK(cudaMallocHost(&h, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h[i] = float(i & 1023);

  cudaStream_t copy_s, compute_s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy_s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute_s, cudaStreamNonBlocking));
  cudaEvent_t uploaded[chunks], computed[chunks];
  for (int c = 0; c < chunks; ++c) {
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded[c], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&computed[c], cudaEventDisableTiming));
  }

  for (int c = 0; c < chunks; ++c) {
    float* hp = h + c * chunk;
    float* dp = d + c * chunk;
    CUDA_CHECK(cudaMemcpyAsync(dp, hp, chunk * sizeof(float), cudaMemcpyHostToDevice, copy_s));
    CUDA_CHECK(cudaEventRecord(uploaded[c], copy_s));
    CUDA_CHECK(cudaStreamWaitEvent(compute_s, uploaded[c], 0));
    square<<<(chunk + 255) / 256, 256, 0, compute_s>>>(dp, chunk);
    CUDA_CHECK(cudaEventRecord(computed[c], compute_s));
    CUDA_CHECK(cudaStreamWaitEvent(copy_s, computed[c], 0));
    CUDA_CHECK(cudaMemcpyAsync(hp, dp, chunk * sizeof(float), cudaMemcpyDeviceToHost, copy_s));
  }
  CUDA_CHECK(cudaStreamSynchronize(copy_s));
  printf("h[3] = %f\n", h[3]);

  for (int c = 0; c < chunks; ++c) {
    CUDA_CHECK(cudaEventDestroy(uploaded[c]));
    CUDA_CHECK(cudaEventDestroy(computed[c]));
  }
  CUDA_CHECK(cudaStreamDestroy(copy_s));
  CUDA_CHECK(cudaStreamDestroy(compute_s));
  CUDA_CHECK(cudaFreeHost(h));
  CUDA_CHECK(cudaFree(d));
  return 0;
}
