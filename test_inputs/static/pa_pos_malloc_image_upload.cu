// Camera frame converter: the RGB frame is read into a malloc'd buffer, uploaded with
// cudaMemcpyAsync on a non-blocking stream and the result is read back into another malloc'd
// buffer. Both host sides are pageable (runtime byte counts) -> two pageable-async-copy warnings.
#include <cstdint>
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

__global__ void rgb_to_gray(const uint8_t* rgb, float* gray, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const uint8_t* p = rgb + 3 * (size_t(y) * w + x);
  gray[size_t(y) * w + x] = (0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2]) / 255.f;
}

int convert_file(const char* path, int w, int h, float* mean_out) {
  const size_t rgb_bytes = size_t(w) * h * 3;
  const size_t gray_bytes = size_t(w) * h * sizeof(float);
  uint8_t* h_rgb = static_cast<uint8_t*>(malloc(rgb_bytes));
  float* h_gray = static_cast<float*>(malloc(gray_bytes));
  FILE* f = fopen(path, "rb");
  if (!f || fread(h_rgb, 1, rgb_bytes, f) != rgb_bytes) {
    if (f) fclose(f);
    free(h_rgb);
    free(h_gray);
    return -1;
  }
  fclose(f);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  uint8_t* d_rgb;
  float* d_gray;
  CUDA_CHECK(cudaMalloc(&d_rgb, rgb_bytes));
  CUDA_CHECK(cudaMalloc(&d_gray, gray_bytes));

  CUDA_CHECK(cudaMemcpyAsync(d_rgb, h_rgb, rgb_bytes, cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  rgb_to_gray<<<grid, block, 0, stream>>>(d_rgb, d_gray, w, h);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_gray, d_gray, gray_bytes, cudaMemcpyDeviceToHost, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double sum = 0.0;
  for (size_t i = 0; i < size_t(w) * h; ++i) sum += h_gray[i];
  *mean_out = float(sum / (double(w) * h));

  CUDA_CHECK(cudaFree(d_rgb));
  CUDA_CHECK(cudaFree(d_gray));
  CUDA_CHECK(cudaStreamDestroy(stream));
  free(h_rgb);
  free(h_gray);
  return 0;
}
