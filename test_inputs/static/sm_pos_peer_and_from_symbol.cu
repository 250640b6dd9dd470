// Two-GPU halo exchange: each GPU runs its stencil on its own non-blocking stream, but the
// halo goes across with synchronous cudaMemcpyPeer while device 0's stencil may still run
// (only s1 was drained), and the residual is read with cudaMemcpyFromSymbol -> a
// sync-memcpy warning at the peer copy; the symbol read after it is not reported. (With both
// streams drained first, the peer copy would come right after a drain: silent, as
// sm_neg_copy_after_stream_param_sync.cu.)
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

__device__ float g_residual;

__global__ void smooth(float* u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i < n - 1) {
    float v = 0.25f * u[i - 1] + 0.5f * u[i] + 0.25f * u[i + 1];
    atomicAdd(&g_residual, fabsf(v - u[i]));
    u[i] = v;
  }
}

// u0 lives on device 0, u1 on device 1; both have n floats with one halo cell at each end.
float exchange_step(float* u0, float* u1, int n, cudaStream_t s0, cudaStream_t s1) {
  CUDA_CHECK(cudaSetDevice(0));
  smooth<<<(n + 255) / 256, 256, 0, s0>>>(u0, n);
  CUDA_CHECK(cudaSetDevice(1));
  smooth<<<(n + 255) / 256, 256, 0, s1>>>(u1, n);
  CUDA_CHECK(cudaStreamSynchronize(s1));
  CUDA_CHECK(cudaSetDevice(0));

  CUDA_CHECK(cudaMemcpyPeer(u1, 1, u0 + n - 2, 0, sizeof(float)));  // expect: warning syncwatch-sync-memcpy
  float residual = 0.f;
  CUDA_CHECK(cudaMemcpyFromSymbol(&residual, g_residual, sizeof(float)));
  return residual;
}
