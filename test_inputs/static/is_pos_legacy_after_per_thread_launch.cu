// The look-alike that must still warn: the legacy memset comes after the per-thread launch,
// so the per-thread stream's sync does not cover it (its kernel did not wait for it), and
// cudaFree waits for it with the device busy. And a per-thread launch on one path only: on
// the other path nothing orders the legacy memset before the sync.
#include <cuda_runtime.h>

__global__ void blur(float *tile, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    tile[i] = 0.25f * tile[i - 1] + 0.5f * tile[i] + 0.25f * tile[i + 1];
}

void blur_then_clear(float *tile, float *next, int n) {
  blur<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(tile, n);
  cudaMemset(next, 0, n * sizeof(float));  // expect: note syncwatch-sync-memcpy
  cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(tile);  // expect: warning syncwatch-implicit-sync
}

void maybe_blur(float *tile, int n, bool smooth) {
  cudaMemset(tile, 0, n * sizeof(float));  // expect: note syncwatch-sync-memcpy
  if (smooth)
    blur<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(tile, n);
  cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(tile);  // expect: warning syncwatch-implicit-sync
}
