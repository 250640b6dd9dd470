// Optical-flow pyramid level with exactly one stream in scope: cudaMemset of the flow field
// (note) and a device-to-device cudaMemcpy of the previous level (warning) in a stream-using
// file. Both are fixable to cudaMemsetAsync / cudaMemcpyAsync on `stream`.
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

__global__ void lucas_kanade(const float* prev, const float* cur, float2* flow, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
  size_t i = size_t(y) * w + x;
  float ix = 0.5f * (cur[i + 1] - cur[i - 1]), iy = 0.5f * (cur[i + w] - cur[i - w]);
  float it = cur[i] - prev[i];
  float den = ix * ix + iy * iy + 1e-3f;
  flow[i] = make_float2(-it * ix / den, -it * iy / den);
}

void flow_level(const float* d_cur, float* d_prev, float* d_prev_saved, float2* d_flow, int w, int h,
                cudaStream_t stream) {
  const size_t pixels = size_t(w) * h;
  cudaMemset(d_flow, 0, pixels * sizeof(float2));  // expect: note syncwatch-sync-memcpy
  cudaMemcpy(d_prev_saved, d_prev, pixels * sizeof(float), cudaMemcpyDeviceToDevice);  // expect: warning syncwatch-sync-memcpy
  CUDA_CHECK(cudaGetLastError());
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  lucas_kanade<<<grid, block, 0, stream>>>(d_prev, d_cur, d_flow, w, h);
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  const int w = 1280, h = 720;
  const size_t pixels = size_t(w) * h;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_cur, *d_prev, *d_saved;
  float2* d_flow;
  CUDA_CHECK(cudaMalloc(&d_cur, pixels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_prev, pixels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_saved, pixels * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_flow, pixels * sizeof(float2)));
  CUDA_CHECK(cudaMemsetAsync(d_cur, 0, pixels * sizeof(float), stream));
  CUDA_CHECK(cudaMemsetAsync(d_prev, 0, pixels * sizeof(float), stream));
  flow_level(d_cur, d_prev, d_saved, d_flow, w, h, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_cur));
  CUDA_CHECK(cudaFree(d_prev));
  CUDA_CHECK(cudaFree(d_saved));
  CUDA_CHECK(cudaFree(d_flow));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
