// A solver template instantiated for float and double: every iteration syncs the legacy
// stream (stream 0), then reads the residual back. Reported once, at the template's line.
#include <cuda_runtime.h>

#define CHECK(x) (void)(x)

template <typename T>
__global__ void jacobi_step(const T* a, const T* b, T* x, T* x_new, T* residual, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x_new[i] = (b[i] - a[i] * x[i]) / a[i];
  residual[0] = x_new[i] - x[i];
}

template <typename T>
int solve(const T* d_a, const T* d_b, T* d_x, T* d_x_new, T* d_res, int n, T tol) {
  T h_res = tol + 1;
  int it = 0;
  while (h_res > tol && it < 1000) {
    jacobi_step<T><<<(n + 255) / 256, 256>>>(d_a, d_b, d_x, d_x_new, d_res, n);  // expect: note syncwatch-default-stream
    CHECK(cudaStreamSynchronize(0));  // expect: warning syncwatch-sync-in-loop; warning syncwatch-redundant-sync; note syncwatch-default-stream
    CHECK(cudaMemcpy(&h_res, d_res, sizeof(T), cudaMemcpyDeviceToHost));
    ++it;
  }
  return it;
}

template int solve<float>(const float*, const float*, float*, float*, float*, int, float);
template int solve<double>(const double*, const double*, double*, double*, double*, int, double);
