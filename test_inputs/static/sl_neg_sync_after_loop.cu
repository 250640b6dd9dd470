// Multi-stream image tiling: each tile is queued on one of four non-blocking streams in a
// loop without any synchronization; every stream is synchronized once, after the launch
// loop, in a loop that only syncs -> no findings.
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

constexpr int kStreams = 4;

__global__ void bilateral_tile(const float* in, float* out, int w, int y0, int rows, float sigma_r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = y0 + blockIdx.y;
  if (x <= 0 || x >= w - 1 || blockIdx.y >= rows) return;
  float c = in[y * w + x], acc = 0.f, wsum = 0.f;
  for (int dx = -1; dx <= 1; ++dx) {
    float v = in[y * w + x + dx];
    float wt = __expf(-(v - c) * (v - c) / (2.f * sigma_r * sigma_r));
    acc += wt * v;
    wsum += wt;
  }
  out[y * w + x] = acc / wsum;
}

void filter_image(const float* d_in, float* d_out, int w, int h, int tile_rows) {
  cudaStream_t streams[kStreams];
  for (int i = 0; i < kStreams; ++i) CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));

  int tile = 0;
  for (int y0 = 0; y0 < h; y0 += tile_rows, ++tile) {
    const int rows = y0 + tile_rows <= h ? tile_rows : h - y0;
    cudaStream_t s = streams[tile % kStreams];
    bilateral_tile<<<dim3((w + 127) / 128, rows), 128, 0, s>>>(d_in, d_out, w, y0, rows, 0.1f);
  }
  CUDA_CHECK(cudaGetLastError());

  for (int i = 0; i < kStreams; ++i) CUDA_CHECK(cudaStreamSynchronize(streams[i]));
  for (int i = 0; i < kStreams; ++i) CUDA_CHECK(cudaStreamDestroy(streams[i]));
}
