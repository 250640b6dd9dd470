// Two-GPU gradient exchange. Each device has its own non-blocking stream, but
// the peer copy omits its stream, the wait is enqueued on stream 0 and the poll
// queries stream 0 (the trailing 0 flags argument is not a stream) -> three warnings.
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

__global__ void add_inplace(float* dst, const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

void exchange_gradients(float* grad0, float* grad1, float* recv0, int n) {
  cudaStream_t s[2];
  cudaEvent_t grads_ready;
  for (int d = 0; d < 2; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
  }
  CUDA_CHECK(cudaSetDevice(1));
  CUDA_CHECK(cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(grads_ready, s[1]));

  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaStreamWaitEvent(0, grads_ready, 0));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaMemcpyPeerAsync(recv0, 0, grad1, 1, n * sizeof(float)));  // expect: warning syncwatch-default-stream
  add_inplace<<<(n + 255) / 256, 256, 0, s[0]>>>(grad0, recv0, n);
  CUDA_CHECK(cudaGetLastError());

  while (cudaStreamQuery(0) == cudaErrorNotReady) {  // expect: warning syncwatch-default-stream
  }
  CUDA_CHECK(cudaStreamSynchronize(s[0]));

  CUDA_CHECK(cudaEventDestroy(grads_ready));
  for (int d = 0; d < 2; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaStreamDestroy(s[d]));
  }
}
