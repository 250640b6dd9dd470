// Helpers a project keeps in a header and calls from several .cu files: syncwatch-lsp's
// edit analysis must see them as the whole unit does (tests/lsp/lsp_scope_test.py).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess)                                                    \
      std::abort();                                                             \
  } while (0)

// A stream-less launch, the way the first version of the project wrote it.
#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)

__global__ void scale(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

// Not a template: its body is in the preamble's PCH, read back only when a caller needs it.
inline void scale_on_default_stream(float *d_data, int n, float factor) {
  scale<<<(n + 255) / 256, 256>>>(d_data, n, factor);
}

inline void scale_on(cudaStream_t stream, float *d_data, int n, float factor) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(d_data, n, factor);
}

template <typename T>
void upload_async(T *d_dst, const T *h_src, std::size_t count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

// A member stream and a wait behind a method.
struct Pipeline {
  cudaStream_t stream = nullptr;
  void create() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  void wait() { CUDA_CHECK(cudaStreamSynchronize(stream)); }
  void run(float *d_data, int n) { scale_on(stream, d_data, n, 0.5f); }
};
