// Block-reduce sum: the accumulator is cleared with cudaMemsetAsync(p, 0, n, 0),
// the kernel is launched with dynamic shared memory but no stream, and the host
// waits with cudaStreamSynchronize(0). No other stream in the file -> three notes.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err = (call);                                              \
    if (err != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(err));                                    \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void reduce_sum(const float* in, int n, float* out) {
  extern __shared__ float sdata[];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  sdata[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, sdata[0]);
}

float gpu_sum(const float* d_in, int n, float* d_acc) {
  const int threads = 256;
  const int blocks = 120;
  CUDA_CHECK(cudaMemsetAsync(d_acc, 0, sizeof(float), 0));  // expect: note syncwatch-default-stream
  reduce_sum<<<blocks, threads, threads * sizeof(float)>>>(d_in, n, d_acc);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(0));  // expect: note syncwatch-default-stream
  float result = 0.f;
  CUDA_CHECK(cudaMemcpy(&result, d_acc, sizeof(float), cudaMemcpyDeviceToHost));
  return result;
}

int main() {
  const int n = 1 << 22;
  std::vector<float> h(n, 0.5f);
  float *d_in, *d_acc;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_acc, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  printf("sum = %f (expected %f)\n", gpu_sum(d_in, n, d_acc), 0.5f * n);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_acc));
  return 0;
}
