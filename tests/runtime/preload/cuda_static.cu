// Preload test program, built by nvcc with its default static cudart: a small correct
// program (one non-blocking stream, pinned memory, one synchronization) whose output is
// the same whether or not a GPU is there, and whose exit code says which.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= f;
}

int main() {
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices == 0) {
    std::printf("no CUDA device\n");
    return 3;
  }
  const int N = 1 << 20;
  float *H = nullptr, *D = nullptr;
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  cudaMallocHost(&H, N * sizeof(float));
  cudaMalloc(&D, N * sizeof(float));
  for (int I = 0; I < N; ++I)
    H[I] = 1.0f;
  cudaMemcpyAsync(D, H, N * sizeof(float), cudaMemcpyHostToDevice, S);
  scale<<<(N + 255) / 256, 256, 0, S>>>(D, N, 3.0f);
  cudaMemcpyAsync(H, D, N * sizeof(float), cudaMemcpyDeviceToHost, S);
  cudaStreamSynchronize(S);
  double Sum = 0;
  for (int I = 0; I < N; ++I)
    Sum += H[I];
  std::printf("sum %.0f\n", Sum);
  cudaFreeHost(H);
  cudaStreamDestroy(S);
  return 0;
}
