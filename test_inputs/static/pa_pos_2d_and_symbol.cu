// Separable blur with constant-memory taps: cudaMemcpy2DAsync from a malloc'd image,
// cudaMemcpyToSymbolAsync from a std::vector of taps (runtime count) and
// cudaMemcpyFromSymbolAsync into a static host array -> three pageable-async-copy warnings.
#include <cmath>
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

__constant__ float c_taps[1024];
__device__ unsigned int g_clipped[64];

__global__ void blur_rows(float* img, size_t pitch, int w, int h, int radius) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(img) + y * pitch);
  float acc = 0.f;
  for (int k = -radius; k <= radius; ++k) acc += c_taps[k + radius] * row[min(max(x + k, 0), w - 1)];
  if (acc > 1.f) atomicAdd(&g_clipped[y % 64], 1u);
  row[x] = acc;
}

static unsigned int h_clipped[64];

unsigned int blur_image(int w, int h, float sigma, cudaStream_t stream) {
  const int radius = int(std::ceil(3.f * sigma));
  std::vector<float> taps(2 * radius + 1);
  for (int k = -radius; k <= radius; ++k) taps[k + radius] = std::exp(-0.5f * k * k / (sigma * sigma));
  float* h_img = static_cast<float*>(malloc(size_t(w) * h * sizeof(float)));
  for (size_t i = 0; i < size_t(w) * h; ++i) h_img[i] = float(i % 251) / 251.f;
  const int bins = h < 64 ? h : 64;

  float* d_img;
  size_t pitch;
  CUDA_CHECK(cudaMallocPitch(&d_img, &pitch, w * sizeof(float), h));
  CUDA_CHECK(cudaMemcpy2DAsync(d_img, pitch, h_img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, taps.data(), taps.size() * sizeof(float), 0, cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  blur_rows<<<dim3((w + 127) / 128, h), 128, 0, stream>>>(d_img, pitch, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyFromSymbolAsync(h_clipped, g_clipped, bins * sizeof(unsigned int), 0, cudaMemcpyDeviceToHost, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  unsigned int clipped = 0;
  for (int b = 0; b < bins; ++b) clipped += h_clipped[b];
  CUDA_CHECK(cudaFree(d_img));
  free(h_img);
  return clipped;
}

int main() {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  printf("clipped: %u\n", blur_image(1920, 1080, 2.5f, stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
