// Teardown after the work was provably drained: a device sync, the last event of every
// stream, a blocking device-to-host cudaMemcpy, an ended cudaStreamQuery polling loop.
// Nothing runs when the frees wait for the device -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      exit(EXIT_FAILURE);                                                             \
    }                                                                                 \
  } while (0)

__global__ void scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void after_device_sync(float* d, int n, cudaStream_t a, cudaStream_t b) {
  scale<<<(n + 255) / 256, 256, 0, a>>>(d, n, 2.f);
  scale<<<(n + 255) / 256, 256, 0, b>>>(d, n, 0.5f);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d));
}

void after_last_events(float* d0, float* d1, int n, cudaStream_t a, cudaStream_t b) {
  cudaEvent_t done[2];
  for (int i = 0; i < 2; ++i) CUDA_CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
  scale<<<(n + 255) / 256, 256, 0, a>>>(d0, n, 2.f);
  CUDA_CHECK(cudaEventRecord(done[0], a));
  scale<<<(n + 255) / 256, 256, 0, b>>>(d1, n, 2.f);
  CUDA_CHECK(cudaEventRecord(done[1], b));
  CUDA_CHECK(cudaEventSynchronize(done[0]));
  CUDA_CHECK(cudaEventSynchronize(done[1]));
  CUDA_CHECK(cudaFree(d0));
  CUDA_CHECK(cudaFree(d1));
}

float after_blocking_copy(float* d, int n, cudaStream_t blocking) {
  float result = 0.f;
  scale<<<(n + 255) / 256, 256, 0, blocking>>>(d, n, 3.f);
  // The legacy-stream copy waits for the blocking stream's kernel before it runs.
  CUDA_CHECK(cudaMemcpy(&result, d, sizeof(float), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  CUDA_CHECK(cudaFree(d));
  return result;
}

void after_polling(float* d, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, n, 4.f);
  while (cudaStreamQuery(s) == cudaErrorNotReady) {
  }
  CUDA_CHECK(cudaFree(d));
}
