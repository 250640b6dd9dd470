// Header-style softmax wrapper templated on the stream type (so it can take a raw
// cudaStream_t or a wrapper convertible to one). The stream is a template
// parameter, and every caller passes a real created stream -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void softmax_rows(const float* logits, float* probs, int cols) {
  extern __shared__ float red[];
  const float* in = logits + size_t(blockIdx.x) * cols;
  float* out = probs + size_t(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  if (threadIdx.x == 0) for (int t = 1; t < blockDim.x; ++t) red[0] = fmaxf(red[0], red[t]);
  __syncthreads();
  m = red[0];
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += __expf(in[c] - m);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - m) / s;
}

struct StreamRef {
  cudaStream_t s;
  operator cudaStream_t() const { return s; }
};

template <typename Stream>
void enqueue_softmax(const float* d_logits, float* d_probs, int rows, int cols, Stream stream) {
  const int threads = 128;
  softmax_rows<<<rows, threads, threads * sizeof(float), stream>>>(d_logits, d_probs, cols);
  CUDA_CHECK(cudaGetLastError());
}

template <typename Stream>
void fetch(float* h, const float* d, size_t n, Stream stream) {
  CUDA_CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
}

void run(const float* d_logits, float* d_probs, float* h_probs, int rows, int cols) {
  cudaStream_t raw;
  CUDA_CHECK(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  StreamRef wrapped{raw};
  enqueue_softmax(d_logits, d_probs, rows, cols, raw);
  enqueue_softmax(d_logits, d_probs, rows, cols, wrapped);
  fetch(h_probs, d_probs, size_t(rows) * cols, wrapped);
  CUDA_CHECK(cudaStreamSynchronize(raw));
  CUDA_CHECK(cudaStreamDestroy(raw));
}
