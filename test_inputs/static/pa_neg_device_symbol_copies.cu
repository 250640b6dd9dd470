// Constant-memory weight swap done entirely on the device: cudaMemcpyToSymbolAsync and
// cudaMemcpyFromSymbolAsync with cudaMemcpyDeviceToDevice and cudaMalloc'd buffers, plus a
// cudaMemcpyAsync DeviceToDevice -> no host side, no findings.
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

__constant__ float c_weights[4096];

__global__ void project(const float* x, float* y, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int j = 0; j < k; ++j) acc += c_weights[j] * x[(i + j) % n];
  y[i] = acc;
}

void project_with(const float* d_bank, int variants, int k, const float* d_x, float* d_y, int n, cudaStream_t s) {
  float *d_backup, *d_stage;
  CUDA_CHECK(cudaMalloc(&d_backup, k * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_stage, k * sizeof(float)));
  CUDA_CHECK(cudaMemcpyFromSymbolAsync(d_backup, c_weights, k * sizeof(float), 0, cudaMemcpyDeviceToDevice, s));
  for (int v = 0; v < variants; ++v) {
    CUDA_CHECK(cudaMemcpyAsync(d_stage, d_bank + size_t(v) * k, k * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, d_stage, k * sizeof(float), 0, cudaMemcpyDeviceToDevice, s));
    project<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_y + size_t(v) * n, n, k);
  }
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, d_backup, k * sizeof(float), 0, cudaMemcpyDeviceToDevice, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_backup));
  CUDA_CHECK(cudaFree(d_stage));
}
