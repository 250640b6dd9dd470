// Async prefetcher that captures its stream in lambdas: cudaMemcpyAsync and the
// decode launch inside the lambdas pass the captured stream explicitly -> no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void dequantize_int8(const signed char* q, float* out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = q[i] * scale;
}

int main() {
  const int n = 1 << 20, batches = 4;
  std::vector<signed char*> h_q(batches);
  for (auto& p : h_q) {
    CUDA_CHECK(cudaMallocHost(&p, n));
    for (int i = 0; i < n; ++i) p[i] = static_cast<signed char>(i % 127);
  }
  signed char* d_q;
  float* d_out;
  CUDA_CHECK(cudaMalloc(&d_q, n));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));

  cudaStream_t prefetch;
  CUDA_CHECK(cudaStreamCreateWithFlags(&prefetch, cudaStreamNonBlocking));

  auto stage = [prefetch, d_q, n](const signed char* src) {
    CUDA_CHECK(cudaMemcpyAsync(d_q, src, n, cudaMemcpyHostToDevice, prefetch));
  };
  auto decode = [=](float scale) {
    dequantize_int8<<<(n + 255) / 256, 256, 0, prefetch>>>(d_q, d_out, n, scale);
    CUDA_CHECK(cudaGetLastError());
  };

  for (int b = 0; b < batches; ++b) {
    stage(h_q[b]);
    decode(0.02f);
  }
  CUDA_CHECK(cudaStreamSynchronize(prefetch));
  printf("dequantized %d batches\n", batches);

  for (auto& p : h_q) CUDA_CHECK(cudaFreeHost(p));
  CUDA_CHECK(cudaFree(d_q));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaStreamDestroy(prefetch));
  return 0;
}
