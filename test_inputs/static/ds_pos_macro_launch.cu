// Elementwise-op library with launch-helper macros. LAUNCH_1D omits the stream and
// LAUNCH_1D_ON is once called with stream 0; both are reported at the macro
// use line (never inside the #define). The file has a real stream -> two warnings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

#define GRID_1D(n) (((n) + 255) / 256)
#define LAUNCH_1D(kernel, n, ...) kernel<<<GRID_1D(n), 256>>>(__VA_ARGS__)
#define LAUNCH_1D_ON(kernel, stream, n, ...) \
  kernel<<<GRID_1D(n), 256, 0, stream>>>(__VA_ARGS__)

__global__ void bias_add(float* x, const float* b, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += b[i % cols];
}

__global__ void relu(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.f);
}

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

void dense_epilogue(float* d_act, const float* d_bias, int rows, int cols,
                    float dropout_keep, cudaStream_t stream) {
  const int n = rows * cols;
  LAUNCH_1D(bias_add, n, d_act, d_bias, n, cols);  // expect: warning syncwatch-default-stream
  LAUNCH_1D_ON(relu, stream, n, d_act, n);
  LAUNCH_1D_ON(scale, 0, n, d_act, 1.f / dropout_keep, n);  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  const int rows = 64, cols = 1024;
  float *act, *bias;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&act, rows * cols * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&bias, cols * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(act, 0, rows * cols * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(bias, 0, cols * sizeof(float), s));
  dense_epilogue(act, bias, rows, cols, 0.9f, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(act));
  CUDA_CHECK(cudaFree(bias));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
