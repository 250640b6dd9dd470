// The look-alike that must still warn: the same start-up, but a kernel launched without a
// stream runs before the readback. The synchronous copy waits for the kernel (a kernel, not a
// microsecond memset), in a file that uses a stream: sync-memcpy warns at the readback, and
// the legacy launch is default-stream work.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_x(n, 2.0f);
  float *d_x;
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMemset(d_x, 0, n * sizeof(float));
  cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d_x, 3.0f, n);  // expect: warning syncwatch-default-stream
  cudaMemcpy(h_x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  cudaMemsetAsync(d_x, 0, n * sizeof(float), side);
  cudaStreamSynchronize(side);
  std::printf("%f\n", h_x[0]);
  cudaStreamDestroy(side);
  cudaFree(d_x);
  return 0;
}
