// Telemetry uploader: the constructor pins the staging member with cudaMallocHost; push()
// fills it with std::memcpy and uploads host_ with cudaMemcpyAsync. In push() host_ has
// unknown provenance (assigned in another function) -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void ema_update(float* state, const float* sample, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] = alpha * sample[i] + (1.f - alpha) * state[i];
}

class TelemetryUploader {
 public:
  explicit TelemetryUploader(int channels) : n_(channels) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost(&host_, bytes()));
    CUDA_CHECK(cudaMalloc(&sample_, bytes()));
    CUDA_CHECK(cudaMalloc(&state_, bytes()));
    CUDA_CHECK(cudaMemsetAsync(state_, 0, bytes(), stream_));
  }
  ~TelemetryUploader() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(host_);
    cudaFree(sample_);
    cudaFree(state_);
    cudaStreamDestroy(stream_);
  }

  void push(const float* readings) {
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // previous upload must be done with host_
    std::memcpy(host_, readings, bytes());
    CUDA_CHECK(cudaMemcpyAsync(sample_, host_, bytes(), cudaMemcpyHostToDevice, stream_));
    ema_update<<<(n_ + 255) / 256, 256, 0, stream_>>>(state_, sample_, n_, 0.1f);
    CUDA_CHECK(cudaGetLastError());
  }

  void snapshot(float* pinned_out) {
    CUDA_CHECK(cudaMemcpyAsync(pinned_out, state_, bytes(), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  size_t bytes() const { return size_t(n_) * sizeof(float); }
  int n_;
  cudaStream_t stream_ = nullptr;
  float* host_ = nullptr;
  float* sample_ = nullptr;
  float* state_ = nullptr;
};
