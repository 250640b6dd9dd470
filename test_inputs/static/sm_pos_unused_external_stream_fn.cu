// A function with external linkage that nothing in this unit calls: another unit may (it is
// declared in a header the rest of the program includes), so the stream it launches on counts
// as one of the program's streams, and the synchronous copies here lose concurrency.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

void enqueue_axpy(float a, const float *x, float *y, int n, cudaStream_t stream) {
  axpy<<<(n + 255) / 256, 256, 0, stream>>>(a, x, y, n);
}

int main() {
  const int n = 1 << 20;
  std::vector<float> hy(n, 2.f);
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);  // (nothing in flight yet)
  axpy<<<(n + 255) / 256, 256>>>(2.f, x, y, n);  // expect: warning syncwatch-default-stream
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  std::printf("%f\n", hy[0]);
  return 0;
}
