// Tile-cropping worker threads that launch on cudaStreamPerThread (so the file uses a
// non-default stream without creating one) but move tiles with synchronous cudaMemcpy2D
// and clear them with cudaMemset2D: notes, since the function's callers are elsewhere
// (the memset before the copy is no work the copy loses concurrency to).
#include <cstdio>
#include <cstdlib>
#include <thread>
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

__global__ void gamma_tile(float* tile, size_t pitch, int w, int h, float g) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(tile) + y * pitch);
  row[x] = __powf(row[x], g);
}

void process_tile(const float* d_image, size_t img_pitch, int x0, int y0, int tw, int th, float* d_tile,
                  size_t tile_pitch) {
  CUDA_CHECK(cudaMemset2D(d_tile, tile_pitch, 0, tw * sizeof(float), th));  // expect: note syncwatch-sync-memcpy
  const char* src = reinterpret_cast<const char*>(d_image) + y0 * img_pitch + x0 * sizeof(float);
  CUDA_CHECK(cudaMemcpy2D(d_tile, tile_pitch, src, img_pitch, tw * sizeof(float), th, cudaMemcpyDeviceToDevice));  // expect: note syncwatch-sync-memcpy (the callers' work)
  gamma_tile<<<dim3((tw + 127) / 128, th), 128, 0, cudaStreamPerThread>>>(d_tile, tile_pitch, tw, th, 0.45f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

void crop_all(const float* d_image, size_t img_pitch, int w, int h, int tile, int workers) {
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t) {
    pool.emplace_back([=] {
      float* d_tile;
      size_t tile_pitch;
      CUDA_CHECK(cudaMallocPitch(&d_tile, &tile_pitch, tile * sizeof(float), tile));
      for (int y = t * tile; y + tile <= h; y += workers * tile)
        for (int x = 0; x + tile <= w; x += tile) process_tile(d_image, img_pitch, x, y, tile, tile, d_tile, tile_pitch);
      CUDA_CHECK(cudaFree(d_tile));
    });
  }
  for (std::thread& th : pool) th.join();
}
