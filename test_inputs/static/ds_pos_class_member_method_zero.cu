// A feature-extractor class owns its stream_ and uses it correctly everywhere,
// except reset(), which clears the accumulator with stream 0. Member streams
// count as "other streams" -> one warning at the stream argument of reset().
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess) {                                                \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void accumulate_mean(const float* frame, float* accum, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) accum[i] += w * frame[i];
}

class RunningMean {
 public:
  explicit RunningMean(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&accum_, bytes()));
    CUDA_CHECK(cudaMalloc(&frame_, bytes()));
  }
  ~RunningMean() {
    cudaStreamSynchronize(stream_);
    cudaFree(accum_);
    cudaFree(frame_);
    cudaStreamDestroy(stream_);
  }

  void reset() {
    count_ = 0;
    CUDA_CHECK(cudaMemsetAsync(accum_, 0, bytes(), 0));  // expect: warning syncwatch-default-stream
  }

  void add(const float* h_frame) {
    ++count_;
    CUDA_CHECK(cudaMemcpyAsync(frame_, h_frame, bytes(), cudaMemcpyHostToDevice, stream_));
    accumulate_mean<<<(n_ + 255) / 256, 256, 0, stream_>>>(frame_, accum_, n_, 1.f / 30.f);
    CUDA_CHECK(cudaGetLastError());
  }

  void download(float* h_out) {
    CUDA_CHECK(cudaMemcpyAsync(h_out, accum_, bytes(), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  size_t bytes() const { return size_t(n_) * sizeof(float); }
  int n_;
  int count_ = 0;
  float* accum_ = nullptr;
  float* frame_ = nullptr;
  cudaStream_t stream_ = nullptr;
};
