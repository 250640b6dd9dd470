// Loop forms other than `for`: a range-for over mini-batches with cudaStreamSynchronize per
// batch, and a do-while Jacobi solve that syncs each sweep to read the residual from pinned
// memory -> two sync-in-loop warnings.
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

struct MiniBatch { const float* d_x; int rows; };

__global__ void row_l2(const float* x, int rows, int cols, float* norms) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.f;
  for (int c = 0; c < cols; ++c) acc += x[size_t(r) * cols + c] * x[size_t(r) * cols + c];
  norms[r] = sqrtf(acc);
}

__global__ void jacobi(const float* u, float* v, int n, float* residual) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= 0 || i >= n - 1) return;
  v[i] = 0.5f * (u[i - 1] + u[i + 1]);
  atomicAdd(residual, fabsf(v[i] - u[i]));
}

void normalize_batches(const std::vector<MiniBatch>& batches, int cols, float* d_norms, cudaStream_t s) {
  for (const MiniBatch& b : batches) {
    row_l2<<<(b.rows + 127) / 128, 128, 0, s>>>(b.d_x, b.rows, cols, d_norms);
    CUDA_CHECK(cudaStreamSynchronize(s));  // expect: warning syncwatch-sync-in-loop
  }
}

// h_residual: cudaMallocHost'ed by the caller.
int solve(float* d_u, float* d_v, float* d_res, float* h_residual, int n, float tol, cudaStream_t s) {
  int sweeps = 0;
  do {
    CUDA_CHECK(cudaMemsetAsync(d_res, 0, sizeof(float), s));
    jacobi<<<(n + 255) / 256, 256, 0, s>>>(d_u, d_v, n, d_res);
    CUDA_CHECK(cudaMemcpyAsync(h_residual, d_res, sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));  // expect: warning syncwatch-sync-in-loop
    float* t = d_u;
    d_u = d_v;
    d_v = t;
    ++sweeps;
  } while (*h_residual > tol && sweeps < 10000);
  return sweeps;
}
