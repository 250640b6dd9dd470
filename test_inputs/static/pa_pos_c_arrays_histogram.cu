// Histogram equalization: the histogram comes back into a local C array and the LUT is
// uploaded from a global C array, both with runtime byte counts -> two pageable-async-copy
// warnings. reset_lut() uploads the global array with sizeof(g_lut) (1 KiB constant): silent.
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

float g_lut[256];

__global__ void histogram(const unsigned char* img, int n, unsigned int* hist, int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[img[i] * bins / 256], 1u);
}

__global__ void apply_lut(unsigned char* img, int n, const float* lut, int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) img[i] = (unsigned char)(255.f * lut[img[i] * bins / 256]);
}

void equalize(unsigned char* d_img, int n, int bins, unsigned int* d_hist, float* d_lut, cudaStream_t s) {
  unsigned int hist[256];
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, bins * sizeof(unsigned int), s));
  histogram<<<(n + 255) / 256, 256, 0, s>>>(d_img, n, d_hist, bins);
  CUDA_CHECK(cudaMemcpyAsync(hist, d_hist, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(s));

  unsigned int cdf = 0;
  for (int b = 0; b < bins; ++b) {
    cdf += hist[b];
    g_lut[b] = float(cdf) / float(n);
  }
  CUDA_CHECK(cudaMemcpyAsync(d_lut, g_lut, bins * sizeof(float), cudaMemcpyHostToDevice, s));  // expect: warning syncwatch-pageable-async-copy
  apply_lut<<<(n + 255) / 256, 256, 0, s>>>(d_img, n, d_lut, bins);
  CUDA_CHECK(cudaGetLastError());
}

void reset_lut(float* d_lut, cudaStream_t s) {
  for (int b = 0; b < 256; ++b) g_lut[b] = b / 255.f;
  CUDA_CHECK(cudaMemcpyAsync(d_lut, g_lut, sizeof(g_lut), cudaMemcpyHostToDevice, s));
}
