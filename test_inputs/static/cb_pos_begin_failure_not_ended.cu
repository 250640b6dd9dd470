// The look-alike that must still warn: the begin's status is tested, but the failure branch
// only logs and goes on, and the success branch returns with the capture still open for its
// caller to end (a beginCapture() helper). The caller's synchronize then runs inside the
// capture on the path where the begin succeeded.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void step_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.f;
}

static bool begin_capture(cudaStream_t s) {
  cudaError_t rc = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  if (rc != cudaSuccess)
    std::fprintf(stderr, "capture not begun: %s\n", cudaGetErrorString(rc));
  return rc == cudaSuccess;
}

int main() {
  const int n = 1024;
  float *x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t g = nullptr;
  begin_capture(s);
  step_kernel<<<4, 256, 0, s>>>(x, n);
  cudaDeviceSynchronize();  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, &g);
  cudaFree(x);
  return 0;
}
