// Launching through the runtime launch APIs instead of <<<>>>: cudaLaunchKernel
// with the trailing smem/stream arguments omitted (default stream 0), and a
// cooperative grid-sync kernel launched with stream 0. No other stream -> two notes.
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err = (call);                                               \
    if (err != cudaSuccess) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err));   \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

__global__ void jacobi_persistent(float* a, float* b, int n, int iters) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iters; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size())
      if (i > 0 && i < n - 1) b[i] = 0.5f * (a[i - 1] + a[i + 1]);
    grid.sync();
    float* t = a; a = b; b = t;
  }
}

void solve(float* d_a, float* d_b, int n, int iters) {
  float init = 1.f;
  void* fill_args[] = {&d_a, &n, &init};
  CUDA_CHECK(cudaLaunchKernel(fill, dim3((n + 255) / 256), dim3(256), fill_args));  // expect: note syncwatch-default-stream

  int dev = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_persistent, 256, 0));
  void* args[] = {&d_a, &d_b, &n, &iters};
  CUDA_CHECK(cudaLaunchCooperativeKernel(jacobi_persistent, dim3(sms * per_sm), dim3(256),
                                         args, 0, 0));  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaDeviceSynchronize());
}
