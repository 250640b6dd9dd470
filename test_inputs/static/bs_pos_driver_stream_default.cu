// Driver-API inference host: compute streams created with CU_STREAM_DEFAULT and
// with flags 0 (both blocking), a copy stream with CU_STREAM_NON_BLOCKING; weights are
// uploaded with synchronous cuMemcpyHtoD/cuMemsetD32 -> two blocking-stream warnings.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(call)                                                     \
  do {                                                                     \
    CUresult r = (call);                                                   \
    if (r != CUDA_SUCCESS) {                                               \
      const char* s = "?";                                                 \
      cuGetErrorName(r, &s);                                               \
      fprintf(stderr, "%s failed with %s\n", #call, s);                    \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

struct Engine {
  CUmodule module;
  CUfunction gemv;
  CUstream compute, aux, copy;
  CUdeviceptr weights, input, output;
  int rows, cols;
};

void engine_init(Engine& e, const char* cubin, const float* h_weights, int rows, int cols) {
  e.rows = rows;
  e.cols = cols;
  CU_CHECK(cuModuleLoad(&e.module, cubin));
  CU_CHECK(cuModuleGetFunction(&e.gemv, e.module, "gemv_f32"));
  CU_CHECK(cuStreamCreate(&e.compute, CU_STREAM_DEFAULT));  // expect: warning syncwatch-blocking-stream
  CU_CHECK(cuStreamCreate(&e.aux, 0));  // expect: warning syncwatch-blocking-stream
  CU_CHECK(cuStreamCreate(&e.copy, CU_STREAM_NON_BLOCKING));
  CU_CHECK(cuMemAlloc(&e.weights, size_t(rows) * cols * sizeof(float)));
  CU_CHECK(cuMemAlloc(&e.input, cols * sizeof(float)));
  CU_CHECK(cuMemAlloc(&e.output, rows * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(e.weights, h_weights, size_t(rows) * cols * sizeof(float)));  // expect: note syncwatch-sync-memcpy
  CU_CHECK(cuMemsetD32(e.output, 0, rows));
}

void engine_infer(Engine& e, const float* h_in, float* h_out) {
  CU_CHECK(cuMemcpyHtoDAsync(e.input, h_in, e.cols * sizeof(float), e.copy));
  CUevent staged;
  CU_CHECK(cuEventCreate(&staged, CU_EVENT_DISABLE_TIMING));
  CU_CHECK(cuEventRecord(staged, e.copy));
  CU_CHECK(cuStreamWaitEvent(e.compute, staged, 0));
  void* args[] = {&e.weights, &e.input, &e.output, &e.rows, &e.cols};
  CU_CHECK(cuLaunchKernel(e.gemv, (e.rows + 127) / 128, 1, 1, 128, 1, 1, 0, e.compute, args, nullptr));
  CU_CHECK(cuMemcpyDtoHAsync(h_out, e.output, e.rows * sizeof(float), e.compute));
  CU_CHECK(cuStreamSynchronize(e.compute));
  CU_CHECK(cuEventDestroy(staged));
}
