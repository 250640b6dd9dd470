// RAII GPU buffer class owning a non-blocking stream_ member: all async work goes
// through stream_, and the one synchronous cudaMemcpy (debug dump) is harmless
// because the stream is non-blocking -> no findings.
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

__global__ void clamp_kernel(float* x, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fminf(fmaxf(x[i], lo), hi);
}

class DeviceTensor {
 public:
  explicit DeviceTensor(int n) : n_(n) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocAsync(&data_, bytes(), stream_));
    CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream_));
  }
  ~DeviceTensor() {
    cudaFreeAsync(data_, stream_);
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  void upload(const float* h) {
    CUDA_CHECK(cudaMemcpyAsync(data_, h, bytes(), cudaMemcpyHostToDevice, stream_));  // expect: warning syncwatch-pageable-async-copy
  }
  void clamp(float lo, float hi) {
    clamp_kernel<<<(n_ + 255) / 256, 256, 0, stream_>>>(data_, n_, lo, hi);
    CUDA_CHECK(cudaGetLastError());
  }
  void download(float* h) {
    CUDA_CHECK(cudaMemcpyAsync(h, data_, bytes(), cudaMemcpyDeviceToHost, stream_));  // expect: warning syncwatch-pageable-async-copy
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void debug_dump(int count) const {
    float head[8] = {};
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    CUDA_CHECK(cudaMemcpy(head, data_, (count < 8 ? count : 8) * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < count && i < 8; ++i) printf("%g ", head[i]);
    printf("\n");
  }

 private:
  size_t bytes() const { return size_t(n_) * sizeof(float); }
  int n_;
  float* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

int main() {
  float h[1024];
  for (int i = 0; i < 1024; ++i) h[i] = i - 512.f;
  DeviceTensor t(1024);
  t.upload(h);
  t.clamp(-1.f, 1.f);
  t.download(h);
  t.debug_dump(4);
  return 0;
}
