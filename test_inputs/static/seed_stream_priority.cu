// Stream priorities: long matmul kernels run on a low-priority stream while short pow-like
// kernels go to a high-priority one; both come from cudaStreamCreateWithPriority with
// cudaStreamNonBlocking, results land in pinned memory and syncs follow the loop -> no findings.
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

__global__ void matmul(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += A[size_t(row) * n + k] * B[size_t(k) * n + col];
  C[size_t(row) * n + col] = acc;
}

__global__ void fill(float* x, size_t n, float v) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

__global__ void pow_kernel(float* x, int n, float e, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < reps; ++r) v = __powf(fabsf(v) + 1.f, e);
  x[i] = v;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2048, m = 1 << 16, iters = 16;
  const size_t bytes = size_t(n) * n * sizeof(float);
  int least = 0, greatest = 0;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t lo, hi;
  CUDA_CHECK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));
  CUDA_CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest));

  float *d_a, *d_b, *d_c, *d_p, *h_c, *h_p;
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMalloc(&d_c, bytes));
  CUDA_CHECK(cudaMalloc(&d_p, m * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_c, sizeof(float) * n));
  CUDA_CHECK(cudaMallocHost(&h_p, sizeof(float) * m));
  fill<<<unsigned((size_t(n) * n + 255) / 256), 256, 0, lo>>>(d_a, size_t(n) * n, 1.f);
  fill<<<unsigned((size_t(n) * n + 255) / 256), 256, 0, lo>>>(d_b, size_t(n) * n, 0.5f);
  CUDA_CHECK(cudaMemsetAsync(d_p, 0, m * sizeof(float), hi));

  const dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int i = 0; i < iters; ++i) {
    matmul<<<grid, block, 0, lo>>>(d_a, d_b, d_c, n);
    for (int j = 0; j < 4; ++j) pow_kernel<<<(m + 255) / 256, 256, 0, hi>>>(d_p, m, 0.5f, 8);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_c, d_c, sizeof(float) * n, cudaMemcpyDeviceToHost, lo));
  CUDA_CHECK(cudaMemcpyAsync(h_p, d_p, sizeof(float) * m, cudaMemcpyDeviceToHost, hi));
  CUDA_CHECK(cudaStreamSynchronize(hi));
  CUDA_CHECK(cudaStreamSynchronize(lo));
  printf("C[0] = %f, p[0] = %f\n", h_c[0], h_p[0]);

  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_c));
  CUDA_CHECK(cudaFree(d_p));
  CUDA_CHECK(cudaFreeHost(h_c));
  CUDA_CHECK(cudaFreeHost(h_p));
  CUDA_CHECK(cudaStreamDestroy(lo));
  CUDA_CHECK(cudaStreamDestroy(hi));
  return 0;
}
