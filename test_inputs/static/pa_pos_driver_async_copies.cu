// Driver-API saxpy runner on a CU_STREAM_NON_BLOCKING stream: cuMemcpyHtoDAsync from a
// malloc'd buffer and cuMemcpyDtoHAsync into a std::vector are pageable -> two warnings;
// the cuMemHostAlloc'd (pinned) readback buffer is silent.
#include <cstdio>
#include <cstdlib>
#include <vector>
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

int run_saxpy(CUfunction saxpy, int n, float a) {
  const size_t bytes = size_t(n) * sizeof(float);
  float* h_x = static_cast<float*>(malloc(bytes));
  std::vector<float> h_y(n);
  for (int i = 0; i < n; ++i) h_x[i] = float(i % 17);

  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d_x, d_y;
  float* h_check;
  CU_CHECK(cuMemAlloc(&d_x, bytes));
  CU_CHECK(cuMemAlloc(&d_y, bytes));
  CU_CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&h_check), bytes, CU_MEMHOSTALLOC_PORTABLE));
  CU_CHECK(cuMemsetD32Async(d_y, 0, n, stream));

  CU_CHECK(cuMemcpyHtoDAsync(d_x, h_x, bytes, stream));  // expect: warning syncwatch-pageable-async-copy
  void* args[] = {&n, &a, &d_x, &d_y};
  const unsigned grid = (n + 255) / 256;
  CU_CHECK(cuLaunchKernel(saxpy, grid, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CU_CHECK(cuMemcpyDtoHAsync(h_y.data(), d_y, bytes, stream));  // expect: warning syncwatch-pageable-async-copy
  CU_CHECK(cuMemcpyDtoHAsync(h_check, d_y, bytes, stream));
  CU_CHECK(cuStreamSynchronize(stream));

  int mismatches = 0;
  for (int i = 0; i < n; ++i) mismatches += h_y[i] != h_check[i];
  CU_CHECK(cuMemFree(d_x));
  CU_CHECK(cuMemFree(d_y));
  CU_CHECK(cuMemFreeHost(h_check));
  CU_CHECK(cuStreamDestroy(stream));
  free(h_x);
  return mismatches;
}
