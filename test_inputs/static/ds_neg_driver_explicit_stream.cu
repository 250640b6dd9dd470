// Driver-API kernel runner with a CU_STREAM_NON_BLOCKING stream: async copies and
// cuLaunchKernel pass that stream (the 0s are smem size / flags); the final
// synchronous cuMemcpyDtoH is not a default-stream finding and the stream is non-blocking -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(call)                                                     \
  do {                                                                     \
    CUresult r = (call);                                                   \
    if (r != CUDA_SUCCESS) {                                               \
      const char* s = "?";                                                 \
      cuGetErrorString(r, &s);                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s);     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

int run_vector_add(const char* cubin_path, const float* ha, const float* hb, float* hc, int n) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction vadd;
  CUstream stream;
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuModuleLoad(&mod, cubin_path));
  CU_CHECK(cuModuleGetFunction(&vadd, mod, "vector_add"));

  const size_t bytes = size_t(n) * sizeof(float);
  CUdeviceptr da, db, dc;
  CU_CHECK(cuMemAlloc(&da, bytes));
  CU_CHECK(cuMemAlloc(&db, bytes));
  CU_CHECK(cuMemAlloc(&dc, bytes));
  CU_CHECK(cuMemsetD32Async(dc, 0, n, stream));
  CU_CHECK(cuMemcpyHtoDAsync(da, ha, bytes, stream));
  CU_CHECK(cuMemcpyHtoDAsync(db, hb, bytes, stream));

  void* params[] = {&da, &db, &dc, &n};
  CU_CHECK(cuLaunchKernel(vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params, nullptr));
  CU_CHECK(cuStreamSynchronize(stream));
  CU_CHECK(cuMemcpyDtoH(hc, dc, bytes));  // expect: note syncwatch-sync-memcpy

  CU_CHECK(cuMemFree(da));
  CU_CHECK(cuMemFree(db));
  CU_CHECK(cuMemFree(dc));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
