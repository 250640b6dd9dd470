// clang-flags: -DCUDA_API_PER_THREAD_DEFAULT_STREAM
// Built with a per-thread default stream: the cudaMemcpy waits for this thread's stream only,
// not for the other threads' work that cudaDeviceSynchronize waits for. And the sync before
// the final readback, after the loop, is one round trip, not one per iteration.
#include <cuda_runtime.h>

__global__ void accumulate(const float* in, float* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, in[i]);
}

float reduce_chunks(const float* const* d_chunks, int chunks, float* d_sum, int n) {
  float h_sum = 0.f;
  for (int c = 0; c < chunks; ++c) {
    accumulate<<<(n + 255) / 256, 256>>>(d_chunks[c], d_sum, n);
    cudaDeviceSynchronize();  // expect: warning syncwatch-sync-in-loop
    cudaMemcpy(&h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost);
  }
  accumulate<<<(n + 255) / 256, 256>>>(d_chunks[0], d_sum, n);
  cudaDeviceSynchronize();
  cudaMemcpy(&h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost);
  return h_sum;
}
