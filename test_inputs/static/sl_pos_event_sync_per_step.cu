// Per-step profiling of an FFT-like butterfly pipeline: start/stop events are recorded
// around each step and cudaEventSynchronize(stop) waits inside the loop that queues the
// work -> one sync-in-loop warning.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void butterfly(float2* data, int n, int half) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n / 2) return;
  int block = i / half, off = i % half;
  int a = block * 2 * half + off, b = a + half;
  float ang = -3.14159265f * off / half;
  float2 w = make_float2(__cosf(ang), __sinf(ang));
  float2 x = data[a], y = data[b];
  float2 t = make_float2(w.x * y.x - w.y * y.y, w.x * y.y + w.y * y.x);
  data[a] = make_float2(x.x + t.x, x.y + t.y);
  data[b] = make_float2(x.x - t.x, x.y - t.y);
}

std::vector<float> profile_stages(float2* d_data, int log2n, cudaStream_t s) {
  const int n = 1 << log2n;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(log2n);
  for (int stage = 0; stage < log2n; ++stage) {
    CUDA_CHECK(cudaEventRecord(start, s));
    butterfly<<<(n / 2 + 255) / 256, 256, 0, s>>>(d_data, n, 1 << stage);
    CUDA_CHECK(cudaEventRecord(stop, s));
    CUDA_CHECK(cudaEventSynchronize(stop));  // expect: warning syncwatch-sync-in-loop
    CUDA_CHECK(cudaEventElapsedTime(&ms[stage], start, stop));
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}
