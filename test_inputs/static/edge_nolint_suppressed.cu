// Reviewed, intentional legacy-stream uses silenced with NOLINT(syncwatch-default-stream)
// and NOLINTNEXTLINE(syncwatch-*): those two lines must produce nothing. One
// unsuppressed launch remains -> exactly one warning (the file has a stream).
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

__global__ void warmup() {}

__global__ void fill_iota(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i;
}

__global__ void gather(const float* src, const int* idx, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]];
}

void permute(const float* d_src, float* d_dst, int* d_idx, int n) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // Context warm-up must happen on the legacy stream before any other work.
  warmup<<<1, 1>>>();  // NOLINT(syncwatch-default-stream)
  // NOLINTNEXTLINE(syncwatch-*)
  CUDA_CHECK(cudaStreamSynchronize(0));

  fill_iota<<<(n + 255) / 256, 256>>>(d_idx, n);  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaDeviceSynchronize());
  gather<<<(n + 255) / 256, 256, 0, s>>>(d_src, d_idx, d_dst, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
}
