// Satellite image tiler: the scene is read into a malloc'd buffer that is page-locked in place
// with cudaHostRegister before any stream work; tiles are uploaded with cudaMemcpy2DAsync from
// row/column offsets inside it -> registered memory, no findings.
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

__global__ void ndvi(const ushort2* nir_red, float* out, size_t out_pitch, int tw, int th) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= tw || y >= th) return;
  ushort2 v = nir_red[y * tw + x];
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(out) + y * out_pitch);
  row[x] = (float(v.x) - float(v.y)) / (float(v.x) + float(v.y) + 1.f);
}

int tile_scene(FILE* f, int w, int h, int tile, float* d_ndvi, size_t ndvi_pitch, cudaStream_t s) {
  const size_t row_bytes = size_t(w) * sizeof(ushort2);
  ushort2* scene = static_cast<ushort2*>(malloc(row_bytes * h));
  if (fread(scene, row_bytes, h, f) != size_t(h)) {
    free(scene);
    return -1;
  }
  ushort2* d_tile;
  CUDA_CHECK(cudaHostRegister(scene, row_bytes * h, cudaHostRegisterReadOnly));
  CUDA_CHECK(cudaMalloc(&d_tile, size_t(tile) * tile * sizeof(ushort2)));

  int tiles = 0;
  for (int ty = 0; ty + tile <= h; ty += tile) {
    for (int tx = 0; tx + tile <= w; tx += tile, ++tiles) {
      const ushort2* src = scene + size_t(ty) * w + tx;
      CUDA_CHECK(cudaMemcpy2DAsync(d_tile, tile * sizeof(ushort2), src, row_bytes, tile * sizeof(ushort2), tile, cudaMemcpyHostToDevice, s));
      float* out = reinterpret_cast<float*>(reinterpret_cast<char*>(d_ndvi) + ty * ndvi_pitch) + tx;
      ndvi<<<dim3((tile + 127) / 128, tile), 128, 0, s>>>(d_tile, out, ndvi_pitch, tile, tile);
    }
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_tile));
  CUDA_CHECK(cudaHostUnregister(scene));
  free(scene);
  return tiles;
}
