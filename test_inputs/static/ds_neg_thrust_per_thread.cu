// clang-flags: -fgpu-default-stream=per-thread
// nvcc-flags: --default-stream per-thread
// A per-thread default stream build: thrust's containers then fill and copy on the thread's
// own stream (cudaStreamPerThread), which does not serialize with other streams. No finding.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cuda_runtime.h>

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2.0f;
}

int main() {
  const int n = 1024;
  cudaStream_t s;
  cudaStreamCreate(&s);
  thrust::device_vector<float> d(n, 1.0f);
  scale<<<(n + 255) / 256, 256, 0, s>>>(thrust::raw_pointer_cast(d.data()), n);
  cudaStreamSynchronize(s);
  thrust::host_vector<float> h = d;
  cudaStreamDestroy(s);
  return h[0] == 2.0f ? 0 : 1;
}
