// Batched inference server loop: each batch is uploaded from pinned memory, run and
// downloaded, then cudaStreamSynchronize waits before the next batch is even queued -> one
// sync-in-loop warning (the copies use pinned buffers, so nothing else is reported).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void mlp_layer(const float* x, const float* w, float* y, int batch, int in, int out) {
  int b = blockIdx.y, o = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch || o >= out) return;
  float acc = 0.f;
  for (int i = 0; i < in; ++i) acc += x[size_t(b) * in + i] * w[size_t(i) * out + o];
  y[size_t(b) * out + o] = tanhf(acc);
}

int main(int argc, char** argv) {
  const int requests = argc > 1 ? atoi(argv[1]) : 10000, max_batch = 64, in = 512, out = 128;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *h_in, *h_out, *d_in, *d_w, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, size_t(requests) * in * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, size_t(requests) * out * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_in, size_t(max_batch) * in * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, size_t(in) * out * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, size_t(max_batch) * out * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_w, 0, size_t(in) * out * sizeof(float), stream));
  for (size_t i = 0; i < size_t(requests) * in; ++i) h_in[i] = float(i % 13) * 0.01f;

  for (int first = 0; first < requests; first += max_batch) {
    const int batch = std::min(max_batch, requests - first);
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in + size_t(first) * in, size_t(batch) * in * sizeof(float), cudaMemcpyHostToDevice, stream));
    mlp_layer<<<dim3((out + 127) / 128, batch), 128, 0, stream>>>(d_in, d_w, d_out, batch, in, out);
    CUDA_CHECK(cudaMemcpyAsync(h_out + size_t(first) * out, d_out, size_t(batch) * out * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // expect: warning syncwatch-sync-in-loop
  }

  printf("out[0] = %f\n", h_out[0]);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_w));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
