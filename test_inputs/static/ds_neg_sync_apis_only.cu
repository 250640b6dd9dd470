// Pitched-image upload/download utilities using only synchronous runtime APIs
// (cudaMallocPitch, cudaMemset2D, cudaMemcpy2D, cudaMemcpy, cudaDeviceSynchronize).
// They take no stream parameter, and no stream is created -> no findings from either rule.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct PitchedImage {
  unsigned char* data = nullptr;
  size_t pitch = 0;
  int width = 0, height = 0, channels = 0;
};

PitchedImage upload_image(const unsigned char* host, int w, int h, int c) {
  PitchedImage img;
  img.width = w;
  img.height = h;
  img.channels = c;
  CUDA_CHECK(cudaMallocPitch(&img.data, &img.pitch, size_t(w) * c, h));
  CUDA_CHECK(cudaMemset2D(img.data, img.pitch, 0, size_t(w) * c, h));
  CUDA_CHECK(cudaMemcpy2D(img.data, img.pitch, host, size_t(w) * c, size_t(w) * c, h,
                          cudaMemcpyHostToDevice));
  return img;
}

void download_image(const PitchedImage& img, unsigned char* host) {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy2D(host, size_t(img.width) * img.channels, img.data, img.pitch,
                          size_t(img.width) * img.channels, img.height,
                          cudaMemcpyDeviceToHost));
}

unsigned char read_pixel(const PitchedImage& img, int x, int y, int ch) {
  unsigned char v = 0;
  const unsigned char* p = img.data + size_t(y) * img.pitch + size_t(x) * img.channels + ch;
  CUDA_CHECK(cudaMemcpy(&v, p, 1, cudaMemcpyDeviceToHost));
  return v;
}

void free_image(PitchedImage& img) {
  CUDA_CHECK(cudaFree(img.data));
  img.data = nullptr;
}
