// Driver-API upload of a malloc'd array that is page-locked with cuMemHostRegister before the
// first copy; cuMemcpyHtoDAsync / cuMemcpyDtoHAsync use offsets into it and the unregister
// follows cuStreamSynchronize -> no findings.
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

// `scale_fn(float* x, int n, float s)` comes from a module loaded by the caller.
double scale_halves(CUfunction scale_fn, int n, float factor) {
  const size_t bytes = size_t(n) * sizeof(float), half = bytes / 2;
  float* h = static_cast<float*>(malloc(bytes));
  for (int i = 0; i < n; ++i) h[i] = float(i % 100);
  CUstream stream;
  CUdeviceptr d;
  CU_CHECK(cuMemHostRegister(h, bytes, CU_MEMHOSTREGISTER_PORTABLE));
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuMemAlloc(&d, bytes));

  CU_CHECK(cuMemcpyHtoDAsync(d, h, half, stream));
  CU_CHECK(cuMemcpyHtoDAsync(d + half, reinterpret_cast<char*>(h) + half, bytes - half, stream));
  void* args[] = {&d, &n, &factor};
  CU_CHECK(cuLaunchKernel(scale_fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CU_CHECK(cuMemcpyDtoHAsync(h, d, bytes, stream));
  CU_CHECK(cuStreamSynchronize(stream));

  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += h[i];
  CU_CHECK(cuMemHostUnregister(h));
  CU_CHECK(cuMemFree(d));
  CU_CHECK(cuStreamDestroy(stream));
  free(h);
  return sum;
}
