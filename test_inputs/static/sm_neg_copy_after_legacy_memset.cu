// Start-up of a solver: buffers cleared with the synchronous cudaMemset and a device-to-device
// cudaMemcpy on the legacy stream, then the input uploaded with cudaMemcpy. The upload is
// queued behind the memset and the device copy whatever it is (one stream), and they take
// microseconds: no concurrency is lost, so sync-memcpy stays silent at the upload and at the
// readback after the stream was synchronized. The non-blocking solver stream keeps
// blocking-stream quiet, and the memsets themselves are before any stream work.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                           \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

__global__ void relax(const float *a, float *x, int *info, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * (x[i] + a[i]);
  if (i == 0) *info = 0;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_a(n, 1.0f), h_x(n);
  int h_info = -1;
  float *d_a, *d_x, *d_x0;
  int *d_info;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x0, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_info, sizeof(int)));
  CUDA_CHECK(cudaMemset(d_x0, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_info, 0, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_x, d_x0, n * sizeof(float), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  relax<<<(n + 255) / 256, 256, 0, stream>>>(d_a, d_x, d_info, n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(&h_info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h_x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("info %d x[0] %f\n", h_info, h_x[0]);
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_x0));
  CUDA_CHECK(cudaFree(d_info));
  return 0;
}
