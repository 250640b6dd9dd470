// Streams puzzler, "blocking copies" variant: matmul on stream 1, uploads on stream 3 from a
// std::vector, downloads on stream 2 into a std::vector followed by cudaStreamSynchronize(s2)
// inside the loop -> pageable-async-copy warnings on both copies. The sync is silent: a copy
// into pageable memory returns only once it and s2's earlier work are done (measured on the
// H200), so the sync waits for nothing; the runtime reports the pair as one blocking copy.
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

__global__ void matmul(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc += A[size_t(row) * n + k] * B[size_t(k) * n + col];
  C[size_t(row) * n + col] = acc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024, iters = 8;
  const size_t elems = size_t(n) * n, bytes = elems * sizeof(float);
  std::vector<float> h_inputs(elems * iters, 1.f), h_results(elems * iters);

  cudaStream_t s1, s2, s3;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
  float *d_a[2], *d_c, *d_b;
  cudaEvent_t uploaded[2], computed[2];
  for (int k = 0; k < 2; ++k) {
    CUDA_CHECK(cudaMalloc(&d_a[k], bytes));
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&computed[k], cudaEventDisableTiming));
  }
  CUDA_CHECK(cudaMalloc(&d_c, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMemsetAsync(d_b, 0, bytes, s1));

  const dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int i = 0; i < iters; ++i) {
    const int slot = i % 2;
    if (i >= 2) CUDA_CHECK(cudaStreamWaitEvent(s3, computed[slot], 0));
    CUDA_CHECK(cudaMemcpyAsync(d_a[slot], h_inputs.data() + i * elems, bytes, cudaMemcpyHostToDevice, s3));  // expect: warning syncwatch-pageable-async-copy
    CUDA_CHECK(cudaEventRecord(uploaded[slot], s3));
    CUDA_CHECK(cudaStreamWaitEvent(s1, uploaded[slot], 0));
    matmul<<<grid, block, 0, s1>>>(d_a[slot], d_b, d_c, n);
    CUDA_CHECK(cudaEventRecord(computed[slot], s1));
    CUDA_CHECK(cudaStreamWaitEvent(s2, computed[slot], 0));
    CUDA_CHECK(cudaMemcpyAsync(h_results.data() + i * elems, d_c, bytes, cudaMemcpyDeviceToHost, s2));  // expect: warning syncwatch-pageable-async-copy
    CUDA_CHECK(cudaStreamSynchronize(s2));  // silent: the pageable copy before it already waited for s2
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("C[0] of last iteration = %f\n", h_results[(iters - 1) * elems]);

  for (int k = 0; k < 2; ++k) CUDA_CHECK(cudaFree(d_a[k]));
  CUDA_CHECK(cudaFree(d_c));
  CUDA_CHECK(cudaFree(d_b));
  return 0;
}
