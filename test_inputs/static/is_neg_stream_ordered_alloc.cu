// Per-batch temporaries with the stream-ordered allocator: cudaMallocAsync / cudaFreeAsync
// inside a loop that launches kernels do not synchronize the device (and pass an explicit
// stream). The pool is configured before any work -> no findings.
#include <cstdint>
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

__global__ void prefix_block(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + (i > 0 ? in[i - 1] : 0);
}

__global__ void compact(const int* flags, const int* pos, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[pos[i]] = i;
}

void compact_batches(const int* d_flags, int* d_out, int batch, int batches, cudaStream_t s) {
  cudaMemPool_t pool;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t keep = UINT64_MAX;
  CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));

  for (int b = 0; b < batches; ++b) {
    int* d_pos;
    CUDA_CHECK(cudaMallocAsync(&d_pos, batch * sizeof(int), s));
    const int* flags = d_flags + size_t(b) * batch;
    prefix_block<<<(batch + 255) / 256, 256, 0, s>>>(flags, d_pos, batch);
    compact<<<(batch + 255) / 256, 256, 0, s>>>(flags, d_pos, batch, d_out + size_t(b) * batch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeAsync(d_pos, s));
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
}
