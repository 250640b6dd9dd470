// Driver-API volume filter with a CU_STREAM_NON_BLOCKING stream for the kernel, but
// synchronous cuMemcpyHtoD (note: nothing in flight yet) and cuMemcpyDtoH for the data
// movement. The readback is silent: after the stream was synchronized only the legacy
// cuMemsetD32 may still run, and the copy is queued behind it whatever it is (a memset of
// the synchronous API is no work sync-memcpy counts; the cuMemsetD32 is not reported).
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

// `median3_fn(const float* in, float* out, int nx, int ny, int nz)` comes from a loaded module.
float median_filter_volume(CUfunction median3_fn, const std::vector<float>& volume, int nx, int ny, int nz) {
  const size_t voxels = size_t(nx) * ny * nz;
  const size_t bytes = voxels * sizeof(float);
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d_in, d_out;
  CU_CHECK(cuMemAlloc(&d_in, bytes));
  CU_CHECK(cuMemAlloc(&d_out, bytes));

  CU_CHECK(cuMemcpyHtoD(d_in, volume.data(), bytes));  // expect: note syncwatch-sync-memcpy
  CU_CHECK(cuMemsetD32(d_out, 0, voxels));
  void* args[] = {&d_in, &d_out, &nx, &ny, &nz};
  CU_CHECK(cuLaunchKernel(median3_fn, (nx + 7) / 8, (ny + 7) / 8, (nz + 7) / 8, 8, 8, 8, 0, stream, args, nullptr));
  CU_CHECK(cuStreamSynchronize(stream));

  std::vector<float> filtered(voxels);
  CU_CHECK(cuMemcpyDtoH(filtered.data(), d_out, bytes));  // silent: only the legacy memset may still run
  double sum = 0.0;
  for (float v : filtered) sum += v;
  CU_CHECK(cuMemFree(d_in));
  CU_CHECK(cuMemFree(d_out));
  CU_CHECK(cuStreamDestroy(stream));
  return float(sum / voxels);
}
