// Measures the catalogue rows that had no measurement of their own (rules/cuda_api.def's
// Evidence column: Documented, Inferred or None): for each call, a 100 ms spin kernel is
// launched on stream s1 and the call's host time is taken. A call that returns only after
// the kernel ended waited for unrelated GPU work. Run twice: s1 non-blocking, s1 blocking.
// Prints one tab-separated row per call; docs/measured-behaviour.md holds the H200's result.
//
//   nvcc -O2 -o unmeasured_calls tests/gpu/unmeasured_calls.cu -lcuda && ./unmeasured_calls
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CHECK_CU(call)                                                                     \
  do {                                                                                     \
    CUresult r_ = (call);                                                                  \
    if (r_ != CUDA_SUCCESS) {                                                              \
      const char *s_ = nullptr;                                                            \
      cuGetErrorString(r_, &s_);                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?");              \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__device__ float symbol[1024];

struct Row {
  const char *Name;
  std::function<void()> Prepare;  // before the spin kernel: allocations the call needs
  std::function<void()> Call;     // timed
  std::function<void()> Cleanup;  // after the device is idle again
};

static double hostMs(const std::function<void()> &F) {
  auto T0 = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count();
}

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));  // the primary context, current for the driver calls too
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double SpinMs = 100;
  const long long Cycles = static_cast<long long>(SpinMs * khz);
  const size_t MB = 1 << 20;

  char *host = static_cast<char *>(std::aligned_alloc(4096, MB));  // pageable, page-aligned for cuMemHostRegister
  void *d = nullptr, *d2 = nullptr, *m = nullptr;
  cudaArray_t arr = nullptr;
  cudaPitchedPtr pitched{};
  CUdeviceptr cd = 0, cd2 = 0;
  size_t pitch = 0;
  cudaStream_t s2, created;
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t ev;
  CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
  size_t stack = 0;
  CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));

  auto devBuf = [&] { CHECK(cudaMalloc(&d, MB)); CHECK(cudaMalloc(&d2, MB)); };
  auto freeBufs = [&] { CHECK(cudaFree(d)); CHECK(cudaFree(d2)); };
  auto none = [] {};

  std::vector<Row> Rows = {
      {"cudaMallocPitch", none, [&] { CHECK(cudaMallocPitch(&d, &pitch, 1024, 1024)); }, [&] { CHECK(cudaFree(d)); }},
      {"cudaMalloc3D", none, [&] { CHECK(cudaMalloc3D(&pitched, make_cudaExtent(1024, 32, 32))); },
       [&] { CHECK(cudaFree(pitched.ptr)); }},
      {"cudaMallocArray", none, [&] { CHECK(cudaMallocArray(&arr, &fmt, 256, 256)); }, [&] { CHECK(cudaFreeArray(arr)); }},
      {"cudaFreeArray", [&] { CHECK(cudaMallocArray(&arr, &fmt, 256, 256)); }, [&] { CHECK(cudaFreeArray(arr)); }, none},
      {"cudaMallocManaged", none, [&] { CHECK(cudaMallocManaged(&m, MB)); }, [&] { CHECK(cudaFree(m)); }},
      {"cudaFree (managed)", [&] { CHECK(cudaMallocManaged(&m, MB)); }, [&] { CHECK(cudaFree(m)); }, none},
      {"cudaMemcpy2D HtoD pageable", devBuf,
       [&] { CHECK(cudaMemcpy2D(d, 1024, host, 1024, 1024, 64, cudaMemcpyHostToDevice)); }, freeBufs},
      {"cudaMemcpyToSymbol pageable", none,
       [&] { CHECK(cudaMemcpyToSymbol(symbol, host, sizeof(float) * 1024)); }, none},
      {"cudaMemset2D", devBuf, [&] { CHECK(cudaMemset2D(d, 1024, 0, 1024, 64)); }, freeBufs},
      {"cudaMemcpyPeer (same device)", devBuf, [&] { CHECK(cudaMemcpyPeer(d, 0, d2, 0, MB)); }, freeBufs},
      {"cudaMemcpyPeerAsync on s2", devBuf, [&] { CHECK(cudaMemcpyPeerAsync(d, 0, d2, 0, MB, s2)); }, freeBufs},
      {"cudaMemcpy3DPeer", devBuf,
       [&] {
         cudaMemcpy3DPeerParms p{};
         p.srcPtr = make_cudaPitchedPtr(d2, 1024, 1024, 1);
         p.dstPtr = make_cudaPitchedPtr(d, 1024, 1024, 1);
         p.extent = make_cudaExtent(1024, 1, 1);
         CHECK(cudaMemcpy3DPeer(&p));
       },
       freeBufs},
      {"cudaEventRecord on s2", none, [&] { CHECK(cudaEventRecord(ev, s2)); }, none},
      {"cudaStreamCreateWithPriority", none, [&] { CHECK(cudaStreamCreateWithPriority(&created, cudaStreamNonBlocking, -1)); },
       [&] { CHECK(cudaStreamDestroy(created)); }},
      {"cudaDeviceSetLimit (changed)", none,
       [&] { CHECK(cudaDeviceSetLimit(cudaLimitStackSize, stack + 1024)); },
       [&] { CHECK(cudaDeviceSetLimit(cudaLimitStackSize, stack)); }},
      {"cuMemAllocPitch", none, [&] { CHECK_CU(cuMemAllocPitch(&cd, &pitch, 1024, 1024, 4)); }, [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemAllocManaged", none, [&] { CHECK_CU(cuMemAllocManaged(&cd, MB, CU_MEM_ATTACH_GLOBAL)); },
       [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemAlloc", none, [&] { CHECK_CU(cuMemAlloc(&cd, MB)); }, [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemFree", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); }, [&] { CHECK_CU(cuMemFree(cd)); }, none},
      {"cuMemcpy HtoD pageable", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); },
       [&] { CHECK_CU(cuMemcpy(cd, reinterpret_cast<CUdeviceptr>(host), 4096)); }, [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemcpyHtoD pageable", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); },
       [&] { CHECK_CU(cuMemcpyHtoD(cd, host, 4096)); }, [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemcpyDtoD", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); CHECK_CU(cuMemAlloc(&cd2, MB)); },
       [&] { CHECK_CU(cuMemcpyDtoD(cd, cd2, MB)); }, [&] { CHECK_CU(cuMemFree(cd)); CHECK_CU(cuMemFree(cd2)); }},
      {"cuMemcpy2D HtoD pageable", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); },
       [&] {
         CUDA_MEMCPY2D p{};
         p.srcMemoryType = CU_MEMORYTYPE_HOST;
         p.srcHost = host;
         p.srcPitch = 1024;
         p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
         p.dstDevice = cd;
         p.dstPitch = 1024;
         p.WidthInBytes = 1024;
         p.Height = 4;
         CHECK_CU(cuMemcpy2D(&p));
       },
       [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemcpyPeer (same context)", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); CHECK_CU(cuMemAlloc(&cd2, MB)); },
       [&] {
         CUcontext ctx;
         CHECK_CU(cuCtxGetCurrent(&ctx));
         CHECK_CU(cuMemcpyPeer(cd, ctx, cd2, ctx, MB));
       },
       [&] { CHECK_CU(cuMemFree(cd)); CHECK_CU(cuMemFree(cd2)); }},
      {"cuMemsetD8", [&] { CHECK_CU(cuMemAlloc(&cd, MB)); }, [&] { CHECK_CU(cuMemsetD8(cd, 0, MB)); },
       [&] { CHECK_CU(cuMemFree(cd)); }},
      {"cuMemFreeHost", [&] { CHECK_CU(cuMemAllocHost(&m, MB)); }, [&] { CHECK_CU(cuMemFreeHost(m)); }, none},
      {"cuMemHostUnregister", [&] { CHECK_CU(cuMemHostRegister(host, MB, 0)); },
       [&] { CHECK_CU(cuMemHostUnregister(host)); }, none},
      {"cuCtxSetLimit (changed)", none, [&] { CHECK_CU(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack + 2048)); },
       [&] { CHECK_CU(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack)); }},
  };

  std::printf("call\ts1 non-blocking ms\ts1 blocking ms\tverdict\n");
  for (Row &R : Rows) {
    double Ms[2];
    for (int Blocking = 0; Blocking < 2; ++Blocking) {
      cudaStream_t s1;
      CHECK(cudaStreamCreateWithFlags(&s1, Blocking ? cudaStreamDefault : cudaStreamNonBlocking));
      CHECK(cudaDeviceSynchronize());
      R.Prepare();
      CHECK(cudaDeviceSynchronize());
      spin<<<1, 1, 0, s1>>>(Cycles);
      CHECK(cudaGetLastError());
      Ms[Blocking] = hostMs(R.Call);
      CHECK(cudaDeviceSynchronize());
      R.Cleanup();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaStreamDestroy(s1));
    }
    const double Waited = 0.8 * SpinMs;
    const char *Verdict = Ms[0] > Waited ? "BLOCKS device-wide"
                          : Ms[1] > Waited ? "BLOCKS behind blocking streams"
                                           : "returns at once";
    std::printf("%s\t%.3f\t%.3f\t%s\n", R.Name, Ms[0], Ms[1], Verdict);
  }
  return 0;
}
