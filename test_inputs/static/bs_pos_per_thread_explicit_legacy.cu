// clang-flags: -DCUDA_API_PER_THREAD_DEFAULT_STREAM
// nvcc-flags: --default-stream per-thread
// Per-thread build: stream-less launches and cudaMemcpy are fine, but one call
// syncs cudaStreamLegacy explicitly, which makes the blocking stream a problem again.
// Expect a default-stream warning (explicit cudaStreamLegacy) and a blocking-stream warning.
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

// Legacy plugin that enqueues its own work on the legacy default stream.
extern "C" void legacy_plugin_postprocess(float* d_data, int n);

__global__ void softmax_inplace(float* x, int n) {
  __shared__ float max_v, sum;
  if (threadIdx.x == 0) {
    max_v = x[0];
    for (int i = 1; i < n; ++i) max_v = fmaxf(max_v, x[i]);
    sum = 0.f;
    for (int i = 0; i < n; ++i) sum += __expf(x[i] - max_v);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = __expf(x[i] - max_v) / sum;
}

void classify(const float* h_logits, float* h_probs, int n) {
  cudaStream_t side;
  CUDA_CHECK(cudaStreamCreate(&side));  // expect: warning syncwatch-blocking-stream
  float* d_x;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_logits, n * sizeof(float), cudaMemcpyHostToDevice));  // expect: note syncwatch-sync-memcpy
  softmax_inplace<<<1, 256>>>(d_x, n);
  CUDA_CHECK(cudaStreamSynchronize(side));
  legacy_plugin_postprocess(d_x, n);
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaMemcpy(h_probs, d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaStreamDestroy(side));
}
