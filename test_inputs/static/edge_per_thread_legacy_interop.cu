// clang-flags: -DCUDA_API_PER_THREAD_DEFAULT_STREAM
// nvcc-flags: --default-stream per-thread
// Per-thread build bridging to a library that works on the legacy stream: stream-less
// launches and cudaEventRecord(ev) are per-thread (silent), but the explicit
// cudaStreamLegacy wait is still flagged; cudaStreamPerThread is used -> one warning.
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

// Third-party solver; enqueues everything on the legacy default stream.
extern "C" int legacy_solver_run(float* d_matrix, float* d_rhs, int n);

__global__ void assemble_laplacian(float* a, float* rhs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < n; ++j) a[size_t(i) * n + j] = (i == j) ? 2.f : (abs(i - j) == 1 ? -1.f : 0.f);
  rhs[i] = 1.f;
}

int solve_poisson_1d(float* d_a, float* d_rhs, float* h_x, int n) {
  cudaEvent_t assembled;
  CUDA_CHECK(cudaEventCreateWithFlags(&assembled, cudaEventDisableTiming));
  assemble_laplacian<<<(n + 127) / 128, 128>>>(d_a, d_rhs, n);
  CUDA_CHECK(cudaEventRecord(assembled));
  CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, assembled, 0));  // expect: warning syncwatch-default-stream
  int status = legacy_solver_run(d_a, d_rhs, n);
  CUDA_CHECK(cudaMemcpy(h_x, d_rhs, n * sizeof(float), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  CUDA_CHECK(cudaEventDestroy(assembled));
  return status;
}
