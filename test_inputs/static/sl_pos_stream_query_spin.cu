// Video filter loop that busy-waits on each frame with a cudaStreamQuery spin. The spin's
// own while loop issues no work, but the enclosing frame loop launches kernels and copies
// -> one sync-in-loop warning at cudaStreamQuery.
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void unsharp(const unsigned char* in, unsigned char* out, int w, int h, float amount) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x <= 0 || x >= w - 1 || y <= 0 || y >= h - 1) return;
  int i = y * w + x;
  float blur = 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  float v = in[i] + amount * (in[i] - blur);
  out[i] = (unsigned char)fminf(fmaxf(v, 0.f), 255.f);
}

// h_frames / h_results: pinned, frames * w * h bytes each (allocated by the caller).
long long sharpen_video(const unsigned char* h_frames, unsigned char* h_results, int frames, int w, int h,
                        unsigned char* d_in, unsigned char* d_out, cudaStream_t s) {
  const size_t bytes = size_t(w) * h;
  long long spins = 0;
  for (int f = 0; f < frames; ++f) {
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_frames + f * bytes, bytes, cudaMemcpyHostToDevice, s));
    unsharp<<<dim3((w + 127) / 128, h), 128, 0, s>>>(d_in, d_out, w, h, 0.7f);
    CUDA_CHECK(cudaMemcpyAsync(h_results + f * bytes, d_out, bytes, cudaMemcpyDeviceToHost, s));
    while (cudaStreamQuery(s) == cudaErrorNotReady) {  // expect: warning syncwatch-sync-in-loop
      ++spins;
      std::this_thread::yield();
    }
    CUDA_CHECK(cudaGetLastError());
  }
  return spins;
}
