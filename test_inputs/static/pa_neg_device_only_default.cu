// Ping-pong stencil with stream-ordered buffers: cudaMemcpyDefault and
// cudaMemcpyDeviceToDevice copies between device allocations (cudaMalloc / cudaMallocAsync)
// have no host side -> no pageable-async-copy finding, and nothing else is reported.
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void heat_step(const float* in, float* out, int w, int h, float k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
  size_t i = size_t(y) * w + x;
  out[i] = in[i] + k * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 4.f * in[i]);
}

void simulate(float* d_field, int w, int h, int steps, cudaStream_t stream) {
  const size_t bytes = size_t(w) * h * sizeof(float);
  float *d_a, *d_b, *d_checkpoint;
  CUDA_CHECK(cudaMalloc(&d_checkpoint, bytes));
  CUDA_CHECK(cudaMallocAsync(&d_a, bytes, stream));
  CUDA_CHECK(cudaMallocAsync(&d_b, bytes, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_a, d_field, bytes, cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDefault, stream));

  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  for (int s = 0; s < steps; ++s) {
    heat_step<<<grid, block, 0, stream>>>(d_a, d_b, w, h, 0.2f);
    std::swap(d_a, d_b);
    if (s == steps / 2) CUDA_CHECK(cudaMemcpyAsync(d_checkpoint, d_a, bytes, cudaMemcpyDefault, stream));
  }
  CUDA_CHECK(cudaMemcpyAsync(d_field, d_a, bytes, cudaMemcpyDefault, stream));
  CUDA_CHECK(cudaFreeAsync(d_a, stream));
  CUDA_CHECK(cudaFreeAsync(d_b, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_checkpoint));
}

int main() {
  const int w = 2048, h = 2048;
  cudaStream_t stream;
  float* d_field;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&d_field, size_t(w) * h * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_field, 0, size_t(w) * h * sizeof(float), stream));
  simulate(d_field, w, h, 500, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_field));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
