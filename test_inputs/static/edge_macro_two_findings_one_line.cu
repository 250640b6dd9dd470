// A SETUP_WORKSPACE macro both creates a blocking stream and clears the buffer on
// stream 0, so two findings land on the single macro use line (never in the #define):
// one default-stream warning and one blocking-stream warning.
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

#define SETUP_WORKSPACE(stream, buf, bytes)           \
  do {                                                 \
    CUDA_CHECK(cudaStreamCreate(&(stream)));           \
    CUDA_CHECK(cudaMalloc(&(buf), (bytes)));           \
    CUDA_CHECK(cudaMemsetAsync((buf), 0, (bytes), 0)); \
  } while (0)

__global__ void topk_partial(const float* scores, int n, float* ws, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && scores[i] > ws[i % k]) ws[i % k] = scores[i];
}

void partial_topk(const float* d_scores, int n, int k, float* h_out) {
  cudaStream_t s;
  float* d_ws = nullptr;
  SETUP_WORKSPACE(s, d_ws, k * sizeof(float));  // expect: warning syncwatch-default-stream; warning syncwatch-blocking-stream
  topk_partial<<<(n + 255) / 256, 256, 0, s>>>(d_scores, n, d_ws, k);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_ws, k * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_ws));
  CUDA_CHECK(cudaStreamDestroy(s));
}
