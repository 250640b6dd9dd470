// Tiled matrix-init worker pool: N streams created with flags 0 (== blocking)
// in a loop, while constants are uploaded with cudaMemcpyToSymbol and buffers are
// cleared with cudaMemset (legacy stream). One blocking-stream warning at the creation call.
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

constexpr int kStreams = 4;
__constant__ float c_scale[2];

__global__ void init_tile(float* m, int ld, int row0, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = row0 + blockIdx.y;
  if (c < cols && r < row0 + rows) m[size_t(r) * ld + c] = c_scale[0] * r + c_scale[1] * c;
}

int main() {
  const int rows = 8192, cols = 8192, tile = rows / kStreams;
  float* d_m;
  CUDA_CHECK(cudaMalloc(&d_m, size_t(rows) * cols * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_m, 0, size_t(rows) * cols * sizeof(float)));
  const float scale[2] = {1e-3f, 1e-6f};
  CUDA_CHECK(cudaMemcpyToSymbol(c_scale, scale, sizeof(scale)));  // silent: queued behind the memset only

  cudaStream_t streams[kStreams];
  for (int i = 0; i < kStreams; ++i)
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], 0));  // expect: warning syncwatch-blocking-stream

  for (int i = 0; i < kStreams; ++i) {
    dim3 grid((cols + 255) / 256, tile);
    init_tile<<<grid, 256, 0, streams[i]>>>(d_m, cols, i * tile, tile, cols);
  }
  for (int i = 0; i < kStreams; ++i) {
    CUDA_CHECK(cudaStreamSynchronize(streams[i]));
    CUDA_CHECK(cudaStreamDestroy(streams[i]));
  }
  float corner;
  CUDA_CHECK(cudaMemcpy(&corner, d_m + size_t(rows) * cols - 1, sizeof(float), cudaMemcpyDeviceToHost));
  printf("m[last] = %f\n", corner);
  CUDA_CHECK(cudaFree(d_m));
  return 0;
}
