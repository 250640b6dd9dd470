// Generic AXPBY helper as a function template, instantiated for float and double.
// The launch has no stream; it must be reported ONCE at the template's launch line,
// not once per instantiation. No other stream in the file -> one note.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err = (call);                                               \
    if (err != cudaSuccess) {                                               \
      fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(err));        \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

template <typename T>
__global__ void axpby_kernel(int n, T a, const T* x, T b, T* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i];
}

template <typename T>
void axpby(int n, T a, const T* d_x, T b, T* d_y) {
  const int block = 256;
  const int grid = (n + block - 1) / block;
  axpby_kernel<T><<<grid, block>>>(n, a, d_x, b, d_y);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
}

template <typename T>
T check_first(const T* d_y) {
  T v{};
  CUDA_CHECK(cudaMemcpy(&v, d_y, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  const int n = 1 << 16;
  float *xf, *yf;
  double *xd, *yd;
  CUDA_CHECK(cudaMalloc(&xf, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&yf, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&xd, n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&yd, n * sizeof(double)));
  CUDA_CHECK(cudaMemset(xf, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(yf, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(xd, 0, n * sizeof(double)));
  CUDA_CHECK(cudaMemset(yd, 0, n * sizeof(double)));

  axpby<float>(n, 2.f, xf, 0.5f, yf);
  axpby<double>(n, 2.0, xd, 0.5, yd);
  printf("%f %f\n", check_first(yf), check_first(yd));

  CUDA_CHECK(cudaFree(xf));
  CUDA_CHECK(cudaFree(yf));
  CUDA_CHECK(cudaFree(xd));
  CUDA_CHECK(cudaFree(yd));
  return 0;
}
