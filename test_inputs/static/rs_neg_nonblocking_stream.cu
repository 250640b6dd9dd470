// The batch runs on a non-blocking stream: a legacy-stream cudaMemcpy does not wait for it,
// so the cudaStreamSynchronize before the readback is needed. Not redundant (it is still a
// sync in a loop, and the copy a synchronous copy in code that uses streams).
#include <cuda_runtime.h>

__global__ void histogram(const unsigned char* px, unsigned* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[px[i]], 1u);
}

void frames(const unsigned char* const* d_frames, int count, unsigned* d_bins, unsigned* h_bins, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int f = 0; f < count; ++f) {
    cudaMemsetAsync(d_bins, 0, 256 * sizeof(unsigned), s);
    histogram<<<(n + 255) / 256, 256, 0, s>>>(d_frames[f], d_bins, n);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-sync-in-loop
    cudaMemcpy(h_bins + 256 * f, d_bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);  // expect: note syncwatch-sync-memcpy
  }
  cudaStreamDestroy(s);
}
