// Classifier readback: softmax probabilities and argmax labels are copied back into local
// std::vector storage (probs.data() and &labels[0]) with cudaMemcpyAsync on the member stream
// -> two pageable-async-copy warnings on the device-to-host copies.
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

__global__ void softmax_rows(const float* logits, float* probs, int* argmax, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = logits + size_t(r) * cols;
  float m = x[0];
  int best = 0;
  for (int c = 1; c < cols; ++c)
    if (x[c] > m) { m = x[c]; best = c; }
  float sum = 0.f;
  for (int c = 0; c < cols; ++c) sum += __expf(x[c] - m);
  for (int c = 0; c < cols; ++c) probs[size_t(r) * cols + c] = __expf(x[c] - m) / sum;
  argmax[r] = best;
}

class Classifier {
 public:
  Classifier(int rows, int cols) : rows_(rows), cols_(cols) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_probs_, size_t(rows) * cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_argmax_, rows * sizeof(int)));
  }
  ~Classifier() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_probs_);
    cudaFree(d_argmax_);
    cudaStreamDestroy(stream_);
  }

  // Returns the labels whose confidence is above `threshold`, -1 otherwise.
  std::vector<int> top1(const float* d_logits, float threshold) {
    std::vector<float> probs(size_t(rows_) * cols_);
    std::vector<int> labels(rows_);
    softmax_rows<<<(rows_ + 127) / 128, 128, 0, stream_>>>(d_logits, d_probs_, d_argmax_, rows_, cols_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(probs.data(), d_probs_, probs.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_));  // expect: warning syncwatch-pageable-async-copy
    CUDA_CHECK(cudaMemcpyAsync(&labels[0], d_argmax_, labels.size() * sizeof(int), cudaMemcpyDeviceToHost, stream_));  // expect: warning syncwatch-pageable-async-copy
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int r = 0; r < rows_; ++r)
      if (probs[size_t(r) * cols_ + labels[r]] < threshold) labels[r] = -1;
    return labels;
  }

 private:
  int rows_, cols_;
  float* d_probs_ = nullptr;
  int* d_argmax_ = nullptr;
  cudaStream_t stream_ = nullptr;
};
