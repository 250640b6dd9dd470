// Debug-instrumented stencil that reconfigures the device after work is queued:
// cudaDeviceSetLimit (warning), cudaFuncSetCacheConfig and cudaDeviceSetCacheConfig (notes)
// follow launches with no sync in between. The limit set after cudaStreamSynchronize is silent.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void warmup(float* x) { if (threadIdx.x == 0) x[0] = 0.f; }

__global__ void stencil5(const float* in, float* out, int n, int verbose) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n - 2) return;
  out[i] = 0.1f * in[i - 2] + 0.2f * in[i - 1] + 0.4f * in[i] + 0.2f * in[i + 1] + 0.1f * in[i + 2];
  if (verbose && i == n / 2) printf("mid value %f\n", out[i]);
}

void run_stencil(float* d_in, float* d_out, int n, int iters, bool verbose, cudaStream_t s) {
  warmup<<<1, 32, 0, s>>>(d_out);
  if (verbose) CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, size_t(8) << 20));  // expect: warning syncwatch-implicit-sync
  CUDA_CHECK(cudaFuncSetCacheConfig(stencil5, cudaFuncCachePreferL1));  // expect: note syncwatch-implicit-sync

  stencil5<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, verbose ? 1 : 0);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));  // expect: note syncwatch-implicit-sync
  for (int it = 1; it < iters; ++it) {
    float* tmp = d_in;
    d_in = d_out;
    d_out = tmp;
    stencil5<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, 0);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, size_t(1) << 20));
}

int main() {
  const int n = 1 << 22;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d_a, *d_b;
  CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_a, 0, n * sizeof(float), s));
  run_stencil(d_a, d_b, n, 10, true, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
