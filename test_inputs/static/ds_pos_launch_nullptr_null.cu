// Sobel edge-detection helper written against the legacy default stream; the
// stream is spelled nullptr in one launch and NULL in the other. The file uses
// no other stream, so both findings are notes.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                  \
  do {                                                                    \
    cudaError_t err = (call);                                             \
    if (err != cudaSuccess) {                                             \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err)); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

__global__ void sobel(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  float gx = -in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1]
             - 2.f * in[y * w + x - 1] + 2.f * in[y * w + x + 1]
             - in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
  float gy = -in[(y - 1) * w + x - 1] - 2.f * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1]
             + in[(y + 1) * w + x - 1] + 2.f * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
  out[y * w + x] = sqrtf(gx * gx + gy * gy);
}

__global__ void threshold(float* img, int n, float t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) img[i] = img[i] > t ? 1.f : 0.f;
}

void detect_edges(const float* h_in, float* h_out, int w, int h, float t) {
  float *d_in, *d_out;
  size_t bytes = size_t(w) * h * sizeof(float);
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemset(d_out, 0, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  sobel<<<grid, block, 0, nullptr>>>(d_in, d_out, w, h);  // expect: note syncwatch-default-stream
  threshold<<<(w * h + 255) / 256, 256, 0, NULL>>>(d_out, w * h, t);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
}
