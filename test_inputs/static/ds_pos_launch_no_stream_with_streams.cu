// Upload pipeline: copies run on a non-blocking stream, but the normalize
// kernel is launched with no stream argument -> legacy default stream.
// Expect one warning at the kernel name (the file also uses a created stream).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                     \
              cudaGetErrorString(err_));                                     \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

__global__ void normalize(float* x, int n, float mean, float inv_std) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (x[i] - mean) * inv_std;
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  float* h_buf = nullptr;
  float* d_buf = nullptr;
  cudaStream_t copy_stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMallocHost(&h_buf, bytes));
  CUDA_CHECK(cudaMalloc(&d_buf, bytes));
  for (int i = 0; i < n; ++i) h_buf[i] = static_cast<float>(i % 255);

  CUDA_CHECK(cudaMemcpyAsync(d_buf, h_buf, bytes, cudaMemcpyHostToDevice, copy_stream));
  CUDA_CHECK(cudaStreamSynchronize(copy_stream));

  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);
  normalize<<<grid, block>>>(d_buf, n, 127.f, 1.f / 73.f);  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaMemcpyAsync(h_buf, d_buf, bytes, cudaMemcpyDeviceToHost, copy_stream));
  CUDA_CHECK(cudaStreamSynchronize(copy_stream));
  printf("x[1] = %f\n", h_buf[1]);

  CUDA_CHECK(cudaFree(d_buf));
  CUDA_CHECK(cudaFreeHost(h_buf));
  CUDA_CHECK(cudaStreamDestroy(copy_stream));
  return 0;
}
