// Monte-Carlo option pricer on several streams: the path buffers are released in a separate
// cleanup loop that runs after cudaDeviceSynchronize and issues no work itself -> no
// implicit-sync (and no sync-in-loop) finding.
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

__global__ void simulate_paths(float* payoff, int paths, float s0, float strike, float vol, unsigned seed) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= paths) return;
  unsigned x = seed ^ (p * 2654435761u);
  float s = s0;
  for (int t = 0; t < 64; ++t) {
    x = x * 1664525u + 1013904223u;
    float z = (x >> 8) * (1.f / 16777216.f) - 0.5f;
    s *= __expf(vol * 0.125f * z * 3.464f);
  }
  payoff[p] = fmaxf(s - strike, 0.f);
}

void price(int streams_n, int paths, float s0, float strike, float vol) {
  std::vector<cudaStream_t> streams(streams_n);
  std::vector<float*> payoffs(streams_n);
  for (int i = 0; i < streams_n; ++i) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&payoffs[i], paths * sizeof(float)));
  }
  for (int i = 0; i < streams_n; ++i)
    simulate_paths<<<(paths + 255) / 256, 256, 0, streams[i]>>>(payoffs[i], paths, s0, strike, vol, 1234u + i);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  for (float* p : payoffs) CUDA_CHECK(cudaFree(p));
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
}
