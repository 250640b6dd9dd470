// Inference session with the allocation discipline done right: every cudaMalloc /
// cudaMallocHost / cudaHostAlloc happens in the constructor before any stream work, and
// teardown frees only after cudaStreamSynchronize -> no findings.
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

__global__ void dense_relu(const float* x, const float* w, float* y, int in_dim, int out_dim) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= out_dim) return;
  float acc = 0.f;
  for (int i = 0; i < in_dim; ++i) acc += w[size_t(o) * in_dim + i] * x[i];
  y[o] = fmaxf(acc, 0.f);
}

class InferenceSession {
 public:
  InferenceSession(int in_dim, int out_dim) : in_(in_dim), out_(out_dim) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_w_, size_t(in_) * out_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x_, in_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y_, out_ * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_x_, in_ * sizeof(float)));
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_y_), out_ * sizeof(float), cudaHostAllocDefault));
    CUDA_CHECK(cudaMemsetAsync(d_w_, 0, size_t(in_) * out_ * sizeof(float), stream_));
  }

  ~InferenceSession() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaFree(d_w_));
    CUDA_CHECK(cudaFree(d_x_));
    CUDA_CHECK(cudaFree(d_y_));
    CUDA_CHECK(cudaFreeHost(h_x_));
    CUDA_CHECK(cudaFreeHost(h_y_));
    CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  float* input() { return h_x_; }

  const float* run() {
    CUDA_CHECK(cudaMemcpyAsync(d_x_, h_x_, in_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
    dense_relu<<<(out_ + 127) / 128, 128, 0, stream_>>>(d_x_, d_w_, d_y_, in_, out_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y_, d_y_, out_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return h_y_;
  }

 private:
  int in_, out_;
  cudaStream_t stream_ = nullptr;
  float *d_w_ = nullptr, *d_x_ = nullptr, *d_y_ = nullptr;
  float *h_x_ = nullptr, *h_y_ = nullptr;
};

int main() {
  InferenceSession session(1024, 256);
  for (int i = 0; i < 1024; ++i) session.input()[i] = 0.001f * i;
  printf("y[0] = %f\n", session.run()[0]);
  return 0;
}
