// Reduction helpers that free scratch memory right after queuing stream work, before any
// synchronization: cudaFree of the partial sums and cudaFreeHost of a staging buffer -> two
// implicit-sync warnings. Frees after cudaStreamSynchronize (or with no prior work) are silent.
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

__global__ void block_sums(const float* x, int n, float* partial) {
  __shared__ float sh[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

float device_sum(const float* d_x, int n, float* d_result, float* h_result, cudaStream_t s) {
  const int blocks = (n + 255) / 256;
  float* d_partial;
  CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  block_sums<<<blocks, 256, 0, s>>>(d_x, n, d_partial);
  block_sums<<<1, 256, 0, s>>>(d_partial, blocks, d_result);
  CUDA_CHECK(cudaMemcpyAsync(h_result, d_result, sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaFree(d_partial));  // expect: warning syncwatch-implicit-sync
  CUDA_CHECK(cudaStreamSynchronize(s));
  return *h_result;
}

void upload_and_scale(float* d_x, int n, cudaStream_t s) {
  float* h_stage;
  CUDA_CHECK(cudaMallocHost(&h_stage, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_stage[i] = 0.5f * i;
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_stage, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaFreeHost(h_stage));  // expect: warning syncwatch-implicit-sync
}

float checksum(const float* d_x, int n, cudaStream_t s) {
  float *d_result, *h_result;
  CUDA_CHECK(cudaMalloc(&d_result, sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_result, sizeof(float)));
  const float r = device_sum(d_x, n, d_result, h_result, s);
  CUDA_CHECK(cudaFree(d_result));
  CUDA_CHECK(cudaFreeHost(h_result));
  return r;
}
