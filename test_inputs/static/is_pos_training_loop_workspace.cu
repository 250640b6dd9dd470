// Training loop that allocates a per-step workspace with cudaMalloc and frees it with
// cudaFree while forward/backward/update kernels are queued on a stream: cudaFree -> warning
// (implicit-sync); cudaMalloc gets nothing, since the previous cudaFree drained the device.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void forward(const float* x, const float* w, float* act, int batch, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch * dim) act[i] = fmaxf(0.f, x[i] * w[i % dim]);
}
__global__ void backward(const float* act, const float* x, float* grad, int batch, int dim) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= dim) return;
  float g = 0.f;
  for (int b = 0; b < batch; ++b) g += (act[b * dim + d] > 0.f ? 1.f : 0.f) * x[b * dim + d];
  grad[d] = g / batch;
}
__global__ void sgd_update(float* w, const float* grad, int dim, float lr) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d < dim) w[d] -= lr * grad[d];
}

void train(const float* d_data, float* d_w, float* d_grad, int samples, int dim,
           const std::vector<int>& batch_sizes, float lr) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int offset = 0;
  for (size_t step = 0; step < batch_sizes.size(); ++step) {
    const int batch = batch_sizes[step];
    if (offset + batch > samples) offset = 0;
    float* d_act;
    CUDA_CHECK(cudaMalloc(&d_act, size_t(batch) * dim * sizeof(float)));
    const float* x = d_data + size_t(offset) * dim;
    forward<<<(batch * dim + 255) / 256, 256, 0, stream>>>(x, d_w, d_act, batch, dim);
    backward<<<(dim + 255) / 256, 256, 0, stream>>>(d_act, x, d_grad, batch, dim);
    sgd_update<<<(dim + 255) / 256, 256, 0, stream>>>(d_w, d_grad, dim, lr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFree(d_act));  // expect: warning syncwatch-implicit-sync
    offset += batch;
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
}
