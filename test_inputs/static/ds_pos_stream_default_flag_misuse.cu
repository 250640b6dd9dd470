// Histogram builder that confuses the stream *flag* cudaStreamDefault (== 0)
// with a stream handle: the memset and the launch both end up on the legacy
// default stream. The file also creates a stream -> two warnings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t rc = (call);                                                 \
    if (rc != cudaSuccess) {                                                 \
      fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(rc), __FILE__,      \
              __LINE__);                                                     \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

constexpr int kBins = 256;

__global__ void histogram256(const unsigned char* px, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[px[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 4096 * 4096;
  unsigned char* d_px;
  unsigned int* d_bins;
  unsigned int h_bins[kBins];
  cudaStream_t upload;
  CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&d_px, n));
  CUDA_CHECK(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemsetAsync(d_px, 7, n, upload));
  CUDA_CHECK(cudaStreamSynchronize(upload));

  CUDA_CHECK(cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned int), cudaStreamDefault));  // expect: warning syncwatch-default-stream
  histogram256<<<264, 256, 0, cudaStreamDefault>>>(d_px, n, d_bins);  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(h_bins, d_bins, sizeof(h_bins), cudaMemcpyDeviceToHost));
  printf("bin[7] = %u\n", h_bins[7]);

  CUDA_CHECK(cudaFree(d_px));
  CUDA_CHECK(cudaFree(d_bins));
  CUDA_CHECK(cudaStreamDestroy(upload));
  return 0;
}
