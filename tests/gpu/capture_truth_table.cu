// What each CUDA call does to a stream capture, measured (docs/measured-behaviour.md, "Stream
// capture"): for every call the catalogue's Capture column classifies, in each capture mode,
// on a blocking and a non-blocking captured stream, made by the capturing thread and by another
// thread while the capture is active. One row per case: the call's own result, the capture's
// status right after it (active / invalidated / none), cudaStreamEndCapture's result and the
// node count of the graph it returned (-1: no graph).
//   nvcc -O2 -arch=sm_90 -o capture_truth_table capture_truth_table.cu && ./capture_truth_table
// Output: tab-separated, a header line first.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

__global__ void touch(float* p) { p[threadIdx.x] += 1.0f; }

struct Fixture {
  cudaStream_t Captured = nullptr;  // the stream being captured
  cudaStream_t Other = nullptr;     // a non-blocking stream nobody captures
  float* Device = nullptr;          // 1 MiB, allocated before the capture
  float* Spare = nullptr;           // freed inside the capture by cudaFree
  float* Pinned = nullptr;          // cudaMallocHost, before the capture
  float* PinnedSpare = nullptr;     // freed inside the capture by cudaFreeHost
  float* Pageable = nullptr;        // malloc
  float* Registered = nullptr;      // malloc + cudaHostRegister before the capture
  float* ToRegister = nullptr;      // registered inside the capture
  cudaEvent_t Before = nullptr;     // recorded on Other before the capture
  cudaEvent_t Inside = nullptr;     // recorded on the captured stream inside the capture
};

struct Case {
  const char* Name;
  const char* Class;  // the catalogue's Capture column for the call
  std::function<cudaError_t(Fixture&)> Call;
};

constexpr size_t kBytes = 1 << 20;

std::vector<Case> cases() {
  return {
      {"cudaMalloc", "Unsafe", [](Fixture&) { void* p; cudaError_t e = cudaMalloc(&p, kBytes); if (e == cudaSuccess) cudaFree(p); return e; }},
      {"cudaFree", "Unsafe", [](Fixture& f) { cudaError_t e = cudaFree(f.Spare); if (e == cudaSuccess) f.Spare = nullptr; return e; }},
      {"cudaMallocHost", "Unsafe", [](Fixture&) { void* p; cudaError_t e = cudaMallocHost(&p, kBytes); if (e == cudaSuccess) cudaFreeHost(p); return e; }},
      {"cudaFreeHost", "Unsafe", [](Fixture& f) { cudaError_t e = cudaFreeHost(f.PinnedSpare); if (e == cudaSuccess) f.PinnedSpare = nullptr; return e; }},
      {"cudaHostRegister", "Unsafe", [](Fixture& f) { cudaError_t e = cudaHostRegister(f.ToRegister, kBytes, cudaHostRegisterDefault); if (e == cudaSuccess) cudaHostUnregister(f.ToRegister); return e; }},
      {"cudaMallocManaged", "Unsafe", [](Fixture&) { void* p; cudaError_t e = cudaMallocManaged(&p, kBytes); if (e == cudaSuccess) cudaFree(p); return e; }},
      {"cudaMallocAsync", "Recorded", [](Fixture& f) { void* p; cudaError_t e = cudaMallocAsync(&p, kBytes, f.Captured); if (e == cudaSuccess) e = cudaFreeAsync(p, f.Captured); return e; }},
      {"cudaMemcpy(DtoH)", "Conflicts", [](Fixture& f) { return cudaMemcpy(f.Pinned, f.Device, 4096, cudaMemcpyDeviceToHost); }},
      {"cudaMemset", "Conflicts", [](Fixture& f) { return cudaMemset(f.Device, 0, 4096); }},
      {"launch<<<1,32>>>(legacy)", "Recorded", [](Fixture& f) { touch<<<1, 32>>>(f.Device); return cudaGetLastError(); }},
      {"launch(captured stream)", "Recorded", [](Fixture& f) { touch<<<1, 32, 0, f.Captured>>>(f.Device); return cudaGetLastError(); }},
      {"cudaMemcpyAsync(pinned HtoD)", "Recorded", [](Fixture& f) { return cudaMemcpyAsync(f.Device, f.Pinned, 4096, cudaMemcpyHostToDevice, f.Captured); }},
      {"cudaMemcpyAsync(pageable HtoD)", "Recorded", [](Fixture& f) { return cudaMemcpyAsync(f.Device, f.Pageable, 4096, cudaMemcpyHostToDevice, f.Captured); }},
      {"cudaMemcpyAsync(registered HtoD)", "Recorded", [](Fixture& f) { return cudaMemcpyAsync(f.Device, f.Registered, 4096, cudaMemcpyHostToDevice, f.Captured); }},
      {"cudaStreamSynchronize(captured)", "Conflicts", [](Fixture& f) { return cudaStreamSynchronize(f.Captured); }},
      {"cudaStreamQuery(captured)", "Conflicts", [](Fixture& f) { return cudaStreamQuery(f.Captured); }},
      {"cudaStreamSynchronize(other)", "Conflicts", [](Fixture& f) { return cudaStreamSynchronize(f.Other); }},
      {"cudaStreamSynchronize(legacy)", "Conflicts", [](Fixture&) { return cudaStreamSynchronize(0); }},
      {"cudaDeviceSynchronize", "Conflicts", [](Fixture&) { return cudaDeviceSynchronize(); }},
      {"cudaEventQuery(before)", "Conflicts", [](Fixture& f) { return cudaEventQuery(f.Before); }},
      {"cudaEventSynchronize(before)", "Conflicts", [](Fixture& f) { return cudaEventSynchronize(f.Before); }},
      {"cudaEventQuery(inside)", "Conflicts", [](Fixture& f) { cudaError_t e = cudaEventRecord(f.Inside, f.Captured); return e != cudaSuccess ? e : cudaEventQuery(f.Inside); }},
      {"cudaStreamWaitEvent(before)", "Recorded", [](Fixture& f) { return cudaStreamWaitEvent(f.Captured, f.Before, 0); }},
      {"cudaDeviceSetLimit", "Conflicts", [](Fixture&) { return cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20); }},
      {"cudaStreamCreate", "Allowed", [](Fixture&) { cudaStream_t s; cudaError_t e = cudaStreamCreate(&s); if (e == cudaSuccess) cudaStreamDestroy(s); return e; }},
  };
}

const char* modeName(cudaStreamCaptureMode M) {
  return M == cudaStreamCaptureModeGlobal ? "global" : M == cudaStreamCaptureModeThreadLocal ? "thread_local" : "relaxed";
}

const char* statusName(cudaStreamCaptureStatus S) {
  return S == cudaStreamCaptureStatusActive ? "active" : S == cudaStreamCaptureStatusInvalidated ? "invalidated" : "none";
}

int main() {
  std::vector<Case> all = cases();
  std::printf("call\tclass\tmode\tstream\tthread\tresult\tstatus_after\tend_result\tnodes\n");
  for (cudaStreamCaptureMode mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed})
    for (bool blocking : {false, true})
      for (bool other_thread : {false, true})
        for (const Case& c : all) {
          Fixture f;
          if (blocking)
            cudaStreamCreate(&f.Captured);
          else
            cudaStreamCreateWithFlags(&f.Captured, cudaStreamNonBlocking);
          cudaStreamCreateWithFlags(&f.Other, cudaStreamNonBlocking);
          cudaMalloc(&f.Device, kBytes);
          cudaMalloc(&f.Spare, kBytes);
          cudaMallocHost(&f.Pinned, kBytes);
          cudaMallocHost(&f.PinnedSpare, kBytes);
          f.Pageable = static_cast<float*>(std::malloc(kBytes));
          f.Registered = static_cast<float*>(std::malloc(kBytes));
          f.ToRegister = static_cast<float*>(std::malloc(kBytes));
          cudaHostRegister(f.Registered, kBytes, cudaHostRegisterDefault);
          cudaEventCreateWithFlags(&f.Before, cudaEventDisableTiming);
          cudaEventCreateWithFlags(&f.Inside, cudaEventDisableTiming);
          touch<<<1, 32, 0, f.Other>>>(f.Device);
          cudaEventRecord(f.Before, f.Other);
          cudaDeviceSynchronize();
          cudaGetLastError();

          cudaError_t begin = cudaStreamBeginCapture(f.Captured, mode);
          touch<<<1, 32, 0, f.Captured>>>(f.Device);  // one node before the call
          cudaError_t result = cudaSuccess;
          if (other_thread) {
            std::thread t([&] { result = c.Call(f); });
            t.join();
          } else {
            result = c.Call(f);
          }
          cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
          cudaStreamIsCapturing(f.Captured, &status);
          cudaGraph_t g = nullptr;
          cudaError_t end = cudaStreamEndCapture(f.Captured, &g);
          long nodes = -1;
          if (g) {
            size_t n = 0;
            cudaGraphGetNodes(g, nullptr, &n);
            nodes = static_cast<long>(n);
            cudaGraphDestroy(g);
          }
          cudaGetLastError();
          std::printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%ld\n", c.Name, c.Class, modeName(mode),
                      blocking ? "blocking" : "non_blocking", other_thread ? "other" : "same",
                      begin != cudaSuccess ? "begin_failed" : cudaGetErrorName(result), statusName(status),
                      cudaGetErrorName(end), nodes);
          std::fflush(stdout);
          cudaDeviceSynchronize();
          cudaGetLastError();
          cudaHostUnregister(f.Registered);
          std::free(f.Pageable);
          std::free(f.Registered);
          std::free(f.ToRegister);
          if (f.Spare) cudaFree(f.Spare);
          if (f.PinnedSpare) cudaFreeHost(f.PinnedSpare);
          cudaFreeHost(f.Pinned);
          cudaFree(f.Device);
          cudaEventDestroy(f.Before);
          cudaEventDestroy(f.Inside);
          cudaStreamDestroy(f.Captured);
          cudaStreamDestroy(f.Other);
          cudaGetLastError();
        }
  return 0;
}
