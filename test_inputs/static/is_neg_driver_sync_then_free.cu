// Driver-API histogram: cuMemAlloc / cuMemAllocHost at setup before the first launch, and
// cuMemFree / cuMemFreeHost only after cuStreamSynchronize / cuCtxSynchronize on the
// non-blocking stream -> no findings.
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

// `hist_fn(const unsigned char* data, int n, unsigned* bins)` is loaded by the caller.
unsigned histogram_peak(CUfunction hist_fn, CUdeviceptr d_data, int n) {
  CUstream stream;
  CUdeviceptr d_bins;
  unsigned* h_bins;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuMemAlloc(&d_bins, 256 * sizeof(unsigned)));
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&h_bins), 256 * sizeof(unsigned)));

  CU_CHECK(cuMemsetD32Async(d_bins, 0, 256, stream));
  void* args[] = {&d_data, &n, &d_bins};
  CU_CHECK(cuLaunchKernel(hist_fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CU_CHECK(cuMemcpyDtoHAsync(h_bins, d_bins, 256 * sizeof(unsigned), stream));
  CU_CHECK(cuStreamSynchronize(stream));

  unsigned peak = 0;
  for (int b = 0; b < 256; ++b) peak = h_bins[b] > peak ? h_bins[b] : peak;
  CU_CHECK(cuMemFree(d_bins));
  CU_CHECK(cuMemFreeHost(h_bins));
  CU_CHECK(cuStreamDestroy(stream));
  return peak;
}

void release_all(CUdeviceptr* buffers, int count, CUstream stream, CUfunction finalize_fn) {
  void* args[] = {&buffers[0], &count};
  CU_CHECK(cuLaunchKernel(finalize_fn, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  for (int i = 0; i < count; ++i) CU_CHECK(cuMemFree(buffers[i]));
}
