// Ping-pong double buffering with two streams that happen to be called stream0
// and stream1; stream0 is a real created stream, not the null stream -> no findings.
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

__global__ void dct8x8_rows(float* blk, int nblocks) {
  int b = blockIdx.x * blockDim.y + threadIdx.y, r = threadIdx.x;
  if (b >= nblocks) return;
  float* row = blk + b * 64 + r * 8;
  float in[8], out[8];
  for (int k = 0; k < 8; ++k) in[k] = row[k];
  for (int k = 0; k < 8; ++k) {
    float acc = 0.f;
    for (int n = 0; n < 8; ++n) acc += in[n] * __cosf(3.14159265f / 8.f * (n + 0.5f) * k);
    out[k] = acc;
  }
  for (int k = 0; k < 8; ++k) row[k] = out[k];
}

void encode_tiles(float* h_tiles, int ntiles, int blocks_per_tile) {
  cudaStream_t stream0, stream1;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream0, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream1, cudaStreamNonBlocking));
  const size_t tile_bytes = size_t(blocks_per_tile) * 64 * sizeof(float);
  float* d_buf[2];
  CUDA_CHECK(cudaMalloc(&d_buf[0], tile_bytes));
  CUDA_CHECK(cudaMalloc(&d_buf[1], tile_bytes));
  CUDA_CHECK(cudaMemsetAsync(d_buf[0], 0, tile_bytes, stream0));
  CUDA_CHECK(cudaMemsetAsync(d_buf[1], 0, tile_bytes, stream1));

  for (int t = 0; t < ntiles; ++t) {
    cudaStream_t s = (t % 2 == 0) ? stream0 : stream1;
    float* h = h_tiles + size_t(t) * blocks_per_tile * 64;
    CUDA_CHECK(cudaMemcpyAsync(d_buf[t % 2], h, tile_bytes, cudaMemcpyHostToDevice, s));
    dct8x8_rows<<<(blocks_per_tile + 3) / 4, dim3(8, 4), 0, s>>>(d_buf[t % 2], blocks_per_tile);
    CUDA_CHECK(cudaMemcpyAsync(h, d_buf[t % 2], tile_bytes, cudaMemcpyDeviceToHost, s));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream0));
  CUDA_CHECK(cudaStreamSynchronize(stream1));
  CUDA_CHECK(cudaFree(d_buf[0]));
  CUDA_CHECK(cudaFree(d_buf[1]));
  CUDA_CHECK(cudaStreamDestroy(stream0));
  CUDA_CHECK(cudaStreamDestroy(stream1));
}
