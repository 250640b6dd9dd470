// Driver-API layer loop: each layer cuMemAlloc's a temporary, launches the layer with
// cuLaunchKernel on a non-blocking stream and cuMemFree's the temporary in the same iteration
// -> cuMemAlloc note and cuMemFree warning (implicit-sync). The final frees follow a sync.
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

// `layer_fn(float* in, float* out, int n, int layer)` comes from a cubin loaded by the caller.
int run_layers(CUfunction layer_fn, int n, int layers) {
  const size_t bytes = size_t(n) * sizeof(float);
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d_act, d_result;
  CU_CHECK(cuMemAlloc(&d_act, bytes));
  CU_CHECK(cuMemAlloc(&d_result, sizeof(float)));
  CU_CHECK(cuMemsetD32Async(d_act, 0, n, stream));

  for (int layer = 0; layer < layers; ++layer) {
    CUdeviceptr d_tmp;
    CU_CHECK(cuMemAlloc(&d_tmp, bytes));  // expect: note syncwatch-implicit-sync
    void* args[] = {&d_act, &d_tmp, &n, &layer};
    const unsigned grid = (n + 255) / 256;
    CU_CHECK(cuLaunchKernel(layer_fn, grid, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    CU_CHECK(cuMemcpyDtoDAsync(d_act, d_tmp, bytes, stream));
    CU_CHECK(cuMemFree(d_tmp));  // expect: warning syncwatch-implicit-sync
  }
  CU_CHECK(cuMemcpyDtoDAsync(d_result, d_act, sizeof(float), stream));
  CU_CHECK(cuStreamSynchronize(stream));

  CU_CHECK(cuMemFree(d_act));
  CU_CHECK(cuMemFree(d_result));
  CU_CHECK(cuStreamDestroy(stream));
  return 0;
}
