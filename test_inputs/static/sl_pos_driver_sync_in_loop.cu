// Driver-API solver loops: cuStreamSynchronize after each cuLaunchKernel, a cuEventRecord +
// cuEventSynchronize pair per sweep, and cuCtxSynchronize inside a nested inner loop whose
// outer loop launches -> three sync-in-loop warnings.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(call)                                                     \
  do {                                                                     \
    CUresult r_ = (call);                                                  \
    if (r_ != CUDA_SUCCESS) {                                              \
      const char* msg_ = nullptr;                                          \
      cuGetErrorString(r_, &msg_);                                         \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, msg_); \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

// `sweep_fn(float* u, int n, int color)` is a red-black Gauss-Seidel sweep from a loaded module.
void solve(CUfunction sweep_fn, CUdeviceptr d_u, int n, int iters, int checks) {
  CUstream stream;
  CUevent done;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
  const unsigned grid = (n + 255) / 256;

  for (int it = 0; it < iters; ++it) {
    for (int color = 0; color < 2; ++color) {
      void* args[] = {&d_u, &n, &color};
      CU_CHECK(cuLaunchKernel(sweep_fn, grid, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    }
    CU_CHECK(cuStreamSynchronize(stream));  // expect: warning syncwatch-sync-in-loop
  }

  for (int it = 0; it < iters; ++it) {
    int color = it & 1;
    void* args[] = {&d_u, &n, &color};
    CU_CHECK(cuLaunchKernel(sweep_fn, grid, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    CU_CHECK(cuEventRecord(done, stream));
    CU_CHECK(cuEventSynchronize(done));  // expect: warning syncwatch-sync-in-loop
  }

  for (int c = 0; c < checks; ++c) {
    int color = 0;
    void* args[] = {&d_u, &n, &color};
    CU_CHECK(cuLaunchKernel(sweep_fn, grid, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    for (int retry = 0; retry < 3; ++retry) {
      if (cuCtxSynchronize() == CUDA_SUCCESS) break;  // expect: warning syncwatch-sync-in-loop
    }
  }
  CU_CHECK(cuEventDestroy(done));
  CU_CHECK(cuStreamDestroy(stream));
}
