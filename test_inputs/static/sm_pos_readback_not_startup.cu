// Start-up copies before any stream work exists cost no concurrency: nothing runs yet.
// The read-back after the kernel, with that kernel still running, does.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static void upload(float* d, const std::vector<float>& h) {
  cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
}

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.f), y(n, 2.f);
  float *d_x, *d_y;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  upload(d_x, x);
  upload(d_y, y);
  saxpy<<<(n + 255) / 256, 256, 0, s>>>(n, 2.f, d_x, d_y);
  cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  printf("%f\n", y[0]);
  cudaStreamSynchronize(s);
  cudaFree(d_x);
  cudaFree(d_y);
  return 0;
}
