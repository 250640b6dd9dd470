// A tile worker clears its scratch with cudaMemset (legacy stream), launches on
// cudaStreamPerThread and waits for that stream. The per-thread default stream is a blocking
// stream: its kernel starts only after the earlier legacy memset, so the wait covers both,
// and the cudaFree after it has nothing left to wait for.
#include <cuda_runtime.h>

__global__ void blur(float *tile, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    tile[i] = 0.25f * tile[i - 1] + 0.5f * tile[i] + 0.25f * tile[i + 1];
}

void blur_tile(const float *src, int n) {
  float *scratch;
  cudaMalloc(&scratch, n * sizeof(float));
  cudaMemset(scratch, 0, n * sizeof(float));  // expect: note syncwatch-sync-memcpy
  blur<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(scratch, n);
  cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(scratch);
}

// The same through a macro and in a template: the dependency is the stream's, not the line's.
#define LAUNCH_PT(kernel, n, ...) kernel<<<((n) + 255) / 256, 256, 0, cudaStreamPerThread>>>(__VA_ARGS__)

template <typename T> void clear_then_blur(T *tile, int n) {
  cudaMemset(tile, 0, n * sizeof(T));  // expect: note syncwatch-sync-memcpy
  LAUNCH_PT(blur, n, tile, n);
  cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(tile);
}

void run_templated(int n) {
  float *tile;
  cudaMalloc(&tile, n * sizeof(float));
  clear_then_blur(tile, n);
}
