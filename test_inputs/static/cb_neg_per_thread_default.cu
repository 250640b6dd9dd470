// clang-flags: -fgpu-default-stream=per-thread
// nvcc-flags: --default-stream per-thread
// A per-thread build: a launch without a stream goes to the thread's own default stream, not
// the legacy one, and a synchronous copy waits for that stream only - neither touches the
// capture of another stream: no capture-breaking-call. The cudaFree after the capture waits
// for nothing: the kernel queued into the capture runs only when the graph is launched, and the
// copy waited for the per-thread stream's.
#include <cuda_runtime.h>

__global__ void touch(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}

int main() {
  const int n = 1024;
  float *p, *q, host[16];
  cudaMalloc(&p, n * sizeof(float));
  cudaMalloc(&q, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  touch<<<4, 256, 0, s>>>(p, n);
  touch<<<4, 256>>>(q, n);
  cudaMemcpy(host, q, sizeof(host), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  cudaStreamEndCapture(s, &g);
  cudaGraphDestroy(g);
  cudaFree(p);
  cudaFree(q);
  return 0;
}
