// A program whose CUDA runtime is libcudart.so (built with -cudart shared, as PyTorch's is),
// for issue 40's check of syncwatch while another tool holds CUPTI: a kernel of ~2 ms and a
// synchronize after it, ten times, then a blocking copy back.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void spin(long long Cycles, int *Out) {
  long long Start = clock64();
  while (clock64() - Start < Cycles) {
  }
  *Out = 1;
}

int main() {
  int *Device = nullptr, Host = 0;
  cudaStream_t Stream;
  cudaStreamCreate(&Stream);
  cudaMalloc(&Device, sizeof(int));
  for (int I = 0; I < 10; ++I) {
    spin<<<1, 1, 0, Stream>>>(4'000'000, Device);
    cudaStreamSynchronize(Stream);  // HELD-SYNC
  }
  spin<<<1, 1, 0, Stream>>>(4'000'000, Device);
  cudaMemcpy(&Host, Device, sizeof(int), cudaMemcpyDeviceToHost);  // HELD-COPY
  std::printf("held done %d\n", Host);
  cudaFree(Device);
  return 0;
}
