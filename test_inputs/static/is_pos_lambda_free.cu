// Pipeline stages written as lambdas: reduce_and_release launches the final reduction and
// then cudaFree's its input inside the same lambda -> one implicit-sync warning there. The
// enclosing function frees its own buffers only after cudaStreamSynchronize -> silent.
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

__global__ void square_partials(const float* x, int n, float* partial) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&partial[blockIdx.x % 64], x[i] * x[i]);
}

__global__ void final_sum(const float* partial, int m, float* out) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) acc += partial[i];
  atomicAdd(out, acc);
}

float l2_norm_squared(const float* d_x, int n) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d_partial, *d_out, *h_out;
  CUDA_CHECK(cudaMalloc(&d_partial, 64 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, sizeof(float)));

  auto partials = [&](const float* x, int count) {
    CUDA_CHECK(cudaMemsetAsync(d_partial, 0, 64 * sizeof(float), s));
    square_partials<<<(count + 255) / 256, 256, 0, s>>>(x, count, d_partial);
  };
  auto reduce_and_release = [&](float* partial) {
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), s));
    final_sum<<<1, 64, 0, s>>>(partial, 64, d_out);
    CUDA_CHECK(cudaFree(partial));  // expect: warning syncwatch-implicit-sync
  };

  partials(d_x, n);
  reduce_and_release(d_partial);
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  const float result = *h_out;
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaStreamDestroy(s));
  return result;
}
