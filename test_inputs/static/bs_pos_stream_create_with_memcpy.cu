// "Why don't my streams overlap?": work is issued on a stream made with plain
// cudaStreamCreate (blocking), while synchronous cudaMemcpy calls run on the
// legacy stream. cudaMemcpy itself is not a default-stream finding -> one blocking-stream warning.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void rgb_to_gray(const uchar3* rgb, unsigned char* gray, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gray[i] = (unsigned char)(0.299f * rgb[i].x + 0.587f * rgb[i].y + 0.114f * rgb[i].z);
}

int main() {
  const int w = 1920, h = 1080, n = w * h, frames = 8;
  std::vector<uchar3> h_rgb(n, make_uchar3(10, 200, 30));
  std::vector<unsigned char> h_gray(n);
  uchar3* d_rgb;
  unsigned char* d_gray;
  CUDA_CHECK(cudaMalloc(&d_rgb, n * sizeof(uchar3)));
  CUDA_CHECK(cudaMalloc(&d_gray, n));

  cudaStream_t compute;
  CUDA_CHECK(cudaStreamCreate(&compute));  // expect: warning syncwatch-blocking-stream

  for (int f = 0; f < frames; ++f) {
    CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb.data(), n * sizeof(uchar3), cudaMemcpyHostToDevice));
    rgb_to_gray<<<(n + 255) / 256, 256, 0, compute>>>(d_rgb, d_gray, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_gray.data(), d_gray, n, cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  }
  printf("gray[0] = %d\n", h_gray[0]);

  CUDA_CHECK(cudaStreamDestroy(compute));
  CUDA_CHECK(cudaFree(d_rgb));
  CUDA_CHECK(cudaFree(d_gray));
  return 0;
}
