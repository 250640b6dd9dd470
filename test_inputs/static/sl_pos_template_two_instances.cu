// Iterative refinement written as a function template and instantiated for float and
// double: cudaStreamSynchronize inside the launch loop is one source location -> exactly
// one sync-in-loop warning, reported at the line inside the template.
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

template <typename T>
__global__ void damped_update(T* x, const T* b, int n, T alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + alpha * (b[i] - x[i]);
}

template <typename T>
void refine(T* d_x, const T* d_b, int n, int sweeps, cudaStream_t s) {
  for (int k = 0; k < sweeps; ++k) {
    damped_update<T><<<(n + 255) / 256, 256, 0, s>>>(d_x, d_b, n, T(0.5));
    CUDA_CHECK(cudaStreamSynchronize(s));  // expect: warning syncwatch-sync-in-loop
  }
}

int main() {
  const int n = 1 << 20;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *xf, *bf;
  double *xd, *bd;
  CUDA_CHECK(cudaMalloc(&xf, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&bf, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&xd, n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&bd, n * sizeof(double)));
  CUDA_CHECK(cudaMemsetAsync(xf, 0, n * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(bf, 0, n * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(xd, 0, n * sizeof(double), s));
  CUDA_CHECK(cudaMemsetAsync(bd, 0, n * sizeof(double), s));

  refine<float>(xf, bf, n, 8, s);
  refine<double>(xd, bd, n, 8, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(xf));
  CUDA_CHECK(cudaFree(bf));
  CUDA_CHECK(cudaFree(xd));
  CUDA_CHECK(cudaFree(bd));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
