// clang-flags: -fgpu-rdc
// nvcc-flags: -rdc=true
// Dynamic parallelism in a file without streams: the host's launch goes to the legacy stream
// (a note: nothing else to serialize with yet); the kernel's own launch from device code goes
// to a device-side stream and is not the host's legacy-stream work (its block size is not a
// stream either).
#include <cuda_runtime.h>

__global__ void refine(float *cells, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cells[i] *= 0.5f;
  if (depth > 0 && threadIdx.x == 0)
    refine<<<1, blockDim.x>>>(cells + blockIdx.x * blockDim.x, depth - 1);
}

int main() {
  float *cells;
  cudaMalloc(&cells, 1024 * sizeof(float));
  refine<<<4, 256>>>(cells, 3);  // expect: note syncwatch-default-stream
  cudaDeviceSynchronize();
  cudaFree(cells);
  return 0;
}
