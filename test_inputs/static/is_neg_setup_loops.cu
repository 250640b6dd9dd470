// Layer-buffer allocation in loops: per-layer cudaMalloc in a setup loop that issues no work,
// a forward loop that only launches, cudaStreamSynchronize, then a teardown loop of cudaFree
// calls (no work in it) -> no implicit-sync, sync-in-loop or other finding.
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

__global__ void conv1x1(const float* in, const float* w, float* out, int n, int layer) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(in[i] * w[layer] + 0.01f * layer, 0.f);
}

float run_network(const float* d_input, int n, int layers) {
  std::vector<float*> acts(layers);
  float *d_w, *h_out;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int l = 0; l < layers; ++l) CUDA_CHECK(cudaMalloc(&acts[l], n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, layers * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, sizeof(float)));

  CUDA_CHECK(cudaMemsetAsync(d_w, 0, layers * sizeof(float), s));
  const float* in = d_input;
  for (int l = 0; l < layers; ++l) {
    conv1x1<<<(n + 255) / 256, 256, 0, s>>>(in, d_w, acts[l], n, l);
    in = acts[l];
  }
  CUDA_CHECK(cudaMemcpyAsync(h_out, in, sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));

  const float first = *h_out;
  for (float* a : acts) CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(d_w));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaStreamDestroy(s));
  return first;
}
