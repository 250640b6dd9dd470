// clang-flags: -fgpu-default-stream=per-thread
// nvcc-flags: --default-stream per-thread
// A project built by clang with -fgpu-default-stream=per-thread: clang's front end then
// defines CUDA_API_PER_THREAD_DEFAULT_STREAM (checked with -dM -E), so launches AND the
// stream-less cudaMemcpyAsync use the per-thread stream -> no findings. (The clang driver
// drops the flag under -fsyntax-only; syncwatch-lint passes it on with -Xclang.)
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));  \
      return 1;                                                                   \
    }                                                                             \
  } while (0)

__global__ void histogram(const unsigned char *pixels, int n, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[pixels[i]], 1u);
}

int main() {
  const int n = 1 << 20;
  unsigned char *d_pixels = nullptr;
  unsigned *d_bins = nullptr;
  CUDA_CHECK(cudaMalloc(&d_pixels, n));
  CUDA_CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned)));
  histogram<<<(n + 255) / 256, 256>>>(d_pixels, n, d_bins);
  std::vector<unsigned> bins(256);
  CUDA_CHECK(cudaMemcpyAsync(bins.data(), d_bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("bin[0] = %u\n", bins[0]);
  cudaFree(d_bins);
  cudaFree(d_pixels);
  return 0;
}
