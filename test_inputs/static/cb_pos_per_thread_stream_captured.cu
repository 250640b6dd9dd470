// clang-flags: -fgpu-default-stream=per-thread
// nvcc-flags: --default-stream per-thread
// A per-thread build that captures the per-thread default stream itself: a synchronous copy
// then waits for the stream being captured.
#include <cuda_runtime.h>

__global__ void square(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= p[i];
}

int main() {
  const int n = 1024;
  float* p;
  float host[16];
  cudaMalloc(&p, n * sizeof(float));
  cudaGraph_t g;
  cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal);
  square<<<4, 256>>>(p, n);
  cudaMemcpy(host, p, sizeof(host), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(cudaStreamPerThread, &g);
  cudaGraphDestroy(g);
  cudaFree(p);
  return 0;
}
