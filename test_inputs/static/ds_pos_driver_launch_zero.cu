// Driver-API JIT runner: loads a PTX module and launches "saxpy" with
// cuLaunchKernel; every hStream is 0 / NULL / nullptr (legacy stream). No
// stream is created in the file -> four notes, each at the hStream argument.
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

int run_saxpy(const char* ptx_path, int n, float a) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction saxpy;
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&dev, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CU_CHECK(cuModuleLoad(&mod, ptx_path));
  CU_CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));

  std::vector<float> hx(n, 1.f), hy(n, 2.f);
  CUdeviceptr dx, dy;
  CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_CHECK(cuMemcpyHtoDAsync(dx, hx.data(), n * sizeof(float), 0));  // expect: note syncwatch-default-stream; warning syncwatch-pageable-async-copy
  CU_CHECK(cuMemcpyHtoDAsync(dy, hy.data(), n * sizeof(float), NULL));  // expect: note syncwatch-default-stream; warning syncwatch-pageable-async-copy

  void* args[] = {&n, &a, &dx, &dy};
  unsigned int grid = (n + 255) / 256;
  CU_CHECK(cuLaunchKernel(saxpy, grid, 1, 1, 256, 1, 1,
                          0, nullptr, args, nullptr));  // expect: note syncwatch-default-stream
  CU_CHECK(cuStreamSynchronize(0));  // expect: note syncwatch-default-stream

  CU_CHECK(cuMemcpyDtoH(hy.data(), dy, n * sizeof(float)));
  printf("y[0] = %f\n", hy[0]);
  CU_CHECK(cuMemFree(dx));
  CU_CHECK(cuMemFree(dy));
  CU_CHECK(cuModuleUnload(mod));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
