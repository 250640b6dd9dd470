// A launcher file that does not use ATen (the op in another file passes raw pointers):
// the launch is syncwatch-default-stream's to judge, not syncwatch-torch-current-stream's.
#include <cuda_runtime.h>

__global__ void add_one(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.f;
}

void launch_add_one(float* p, int n, cudaStream_t stream) {
  add_one<<<(n + 255) / 256, 256, 0, stream>>>(p, n);
}

void launch_add_one_default(float* p, int n) {
  add_one<<<(n + 255) / 256, 256>>>(p, n);  // expect: warning syncwatch-default-stream
}
