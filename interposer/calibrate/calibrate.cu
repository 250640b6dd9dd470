// syncwatch-calibrate: measures, on this GPU and driver, what docs/measured-behaviour.md
// measured on an H200 - which CUDA calls make the host wait for unrelated GPU work, and
// whether legacy-stream work serializes with blocking streams - and writes a profile (JSON)
// that `syncwatch-lint --profile` and libsyncwatch (SYNCWATCH_PROFILE) read.
//
// Method (the truth table's): a spin kernel of kSpinMs runs on stream s1; the call under test
// is issued from the host and its host time measured. It "blocks" when it returned only after
// the spin ended. Each call runs twice: s1 created non-blocking, and s1 created by
// cudaStreamCreate (blocking: it synchronizes with the legacy default stream). Only calls
// that are safe to exercise (no device reset, no context changes, state restored) are run.
//
// Usage: syncwatch-calibrate [--out profile.json] [--spin-ms N]
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

__global__ void spin(long long Cycles) {
  long long Start = clock64();
  while (clock64() - Start < Cycles) {
  }
}

__global__ void tiny(int *X) {
  if (X)
    X[threadIdx.x] += 1;
}

struct Case {
  const char *Api;
  const char *What;
  // Runs the call under test; Setup/Teardown run outside the timed region.
  std::function<void()> Setup, Call, Teardown;
};

struct Result {
  std::string Api, What;
  double NonBlockingMs = 0, BlockingMs = 0;
  bool Ok = true;
  std::string Error;
};

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool check(cudaError_t E, std::string &Error) {
  if (E == cudaSuccess)
    return true;
  Error = cudaGetErrorString(E);
  cudaGetLastError();  // clear a sticky-free error so the next case runs
  return false;
}

std::string jsonEscape(const std::string &S) {
  std::string O;
  for (char C : S) {
    if (C == '"' || C == '\\')
      O += '\\';
    if (static_cast<unsigned char>(C) >= 0x20)
      O += C;
  }
  return O;
}

// The options; false (usage said) on anything else.
bool parseOptions(int argc, char **argv, std::string &Out, double &SpinMs) {
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--out") && I + 1 < argc)
      Out = argv[++I];
    else if (!std::strcmp(argv[I], "--spin-ms") && I + 1 < argc)
      SpinMs = std::atof(argv[++I]);
    else {
      std::fprintf(stderr, "usage: syncwatch-calibrate [--out profile.json] [--spin-ms N]\n");
      return false;
    }
  }
  return true;
}

// What the profile and the table say of GPU 0 and the driver.
struct DeviceInfo {
  cudaDeviceProp Prop{};
  int Khz = 0, Least = 0, Greatest = 0, Driver = 0, Runtime = 0;
};

DeviceInfo queryDevice() {
  DeviceInfo D;
  cudaGetDeviceProperties(&D.Prop, 0);
  cudaDeviceGetAttribute(&D.Khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetStreamPriorityRange(&D.Least, &D.Greatest);
  cudaDriverGetVersion(&D.Driver);
  cudaRuntimeGetVersion(&D.Runtime);
  return D;
}

// The buffers, the idle stream S2 and the handles the cases work on (they outlive the cases).
struct Buffers {
  static constexpr size_t Small = 1 << 20, Big = 64u << 20;
  std::vector<char> Pageable = std::vector<char>(Big, 1), PageableSmall = std::vector<char>(4096, 1);
  char *Pinned = nullptr, *Dev = nullptr, *Dev2 = nullptr, *Scratch = nullptr;
  void *HostBuf = nullptr;
  cudaStream_t S2;
  size_t Stack = 0;
  cudaStream_t NewStream = nullptr;
  cudaEvent_t NewEvent = nullptr;
  void *AsyncPtr = nullptr;
  size_t FreeMem = 0, TotalMem = 0;
};

void allocate(Buffers &B) {
  cudaMallocHost(&B.Pinned, Buffers::Big);
  cudaMalloc(&B.Dev, Buffers::Big);
  cudaMalloc(&B.Dev2, Buffers::Small);
  cudaStreamCreateWithFlags(&B.S2, cudaStreamNonBlocking);
  cudaDeviceGetLimit(&B.Stack, cudaLimitStackSize);
}

// The calls that are safe to exercise (no device reset, no context changes, state restored).
std::vector<Case> safeCases(Buffers &B) {
  auto None = [] {};
  return {
      {"cudaMalloc", "1 MB", None, [&] { cudaMalloc(&B.Scratch, Buffers::Small); }, [&] { cudaFree(B.Scratch); }},
      {"cudaFree", "1 MB", [&] { cudaMalloc(&B.Scratch, Buffers::Small); }, [&] { cudaFree(B.Scratch); }, None},
      {"cudaFree", "nullptr", None, [&] { cudaFree(nullptr); }, None},
      {"cudaMallocHost", "1 MB", None, [&] { cudaMallocHost(&B.HostBuf, Buffers::Small); }, [&] { cudaFreeHost(B.HostBuf); }},
      {"cudaFreeHost", "1 MB", [&] { cudaMallocHost(&B.HostBuf, Buffers::Small); }, [&] { cudaFreeHost(B.HostBuf); }, None},
      {"cudaHostRegister", "1 MB", None, [&] { cudaHostRegister(B.Pageable.data(), Buffers::Small, cudaHostRegisterDefault); },
       [&] { cudaHostUnregister(B.Pageable.data()); }},
      {"cudaHostUnregister", "1 MB", [&] { cudaHostRegister(B.Pageable.data(), Buffers::Small, cudaHostRegisterDefault); },
       [&] { cudaHostUnregister(B.Pageable.data()); }, None},
      {"cudaDeviceSetLimit", "stack size changed", None, [&] { cudaDeviceSetLimit(cudaLimitStackSize, B.Stack + 1024); },
       [&] { cudaDeviceSetLimit(cudaLimitStackSize, B.Stack); }},
      {"cudaMallocAsync", "1 MB on an idle stream", None, [&] { cudaMallocAsync(&B.AsyncPtr, Buffers::Small, B.S2); },
       [&] { cudaFreeAsync(B.AsyncPtr, B.S2); cudaStreamSynchronize(B.S2); }},
      {"cudaFreeAsync", "1 MB on an idle stream", [&] { cudaMallocAsync(&B.AsyncPtr, Buffers::Small, B.S2); cudaStreamSynchronize(B.S2); },
       [&] { cudaFreeAsync(B.AsyncPtr, B.S2); }, [&] { cudaStreamSynchronize(B.S2); }},
      {"cudaMemset", "1 MB", None, [&] { cudaMemset(B.Dev2, 0, Buffers::Small); }, None},
      {"cudaMemcpy", "DtoD 1 MB", None, [&] { cudaMemcpy(B.Dev2, B.Dev, Buffers::Small, cudaMemcpyDeviceToDevice); }, None},
      {"cudaMemcpy", "HtoD pageable 4 KB", None,
       [&] { cudaMemcpy(B.Dev2, B.PageableSmall.data(), 4096, cudaMemcpyHostToDevice); }, None},
      {"cudaMemcpy", "DtoH pageable 4 KB", None,
       [&] { cudaMemcpy(B.PageableSmall.data(), B.Dev2, 4096, cudaMemcpyDeviceToHost); }, None},
      {"cudaMemcpyAsync", "HtoD pageable 64 MB, idle stream", None,
       [&] { cudaMemcpyAsync(B.Dev, B.Pageable.data(), Buffers::Big, cudaMemcpyHostToDevice, B.S2); }, [&] { cudaStreamSynchronize(B.S2); }},
      {"cudaMemcpyAsync", "DtoH pageable 64 MB, idle stream", None,
       [&] { cudaMemcpyAsync(B.Pageable.data(), B.Dev, Buffers::Big, cudaMemcpyDeviceToHost, B.S2); }, [&] { cudaStreamSynchronize(B.S2); }},
      {"cudaMemcpyAsync", "HtoD pinned 64 MB, idle stream", None,
       [&] { cudaMemcpyAsync(B.Dev, B.Pinned, Buffers::Big, cudaMemcpyHostToDevice, B.S2); }, [&] { cudaStreamSynchronize(B.S2); }},
      {"cudaStreamCreate", "", None, [&] { cudaStreamCreate(&B.NewStream); }, [&] { cudaStreamDestroy(B.NewStream); }},
      {"cudaEventCreate", "", None, [&] { cudaEventCreate(&B.NewEvent); }, [&] { cudaEventDestroy(B.NewEvent); }},
      {"cudaMemGetInfo", "", None, [&] { cudaMemGetInfo(&B.FreeMem, &B.TotalMem); }, None},
      {"cudaStreamQuery", "idle stream", None, [&] { cudaStreamQuery(B.S2); }, None},
      {"cudaDeviceSetCacheConfig", "prefer L1, then back", None,
       [&] { cudaDeviceSetCacheConfig(cudaFuncCachePreferL1); }, [&] { cudaDeviceSetCacheConfig(cudaFuncCachePreferNone); }},
  };
}

// Each case's host time with s1's spin running (Mode 0: s1 non-blocking, 1: blocking).
void timeCases(std::vector<Case> &Cases, std::vector<Result> &Results, int Mode, cudaStream_t S1, long long Cycles) {
  for (std::size_t I = 0; I < Cases.size(); ++I) {
    Case &C = Cases[I];
    if (Mode == 0)
      Results.push_back({C.Api, C.What});
    Result &R = Results[I];
    cudaDeviceSynchronize();
    C.Setup();
    cudaDeviceSynchronize();
    spin<<<1, 1, 0, S1>>>(Cycles);
    double T0 = nowMs();
    C.Call();
    double Ms = nowMs() - T0;
    std::string Error;
    if (!check(cudaGetLastError(), Error)) {
      R.Ok = false;
      R.Error = Error;
    }
    cudaDeviceSynchronize();
    C.Teardown();
    cudaDeviceSynchronize();
    (Mode == 0 ? R.NonBlockingMs : R.BlockingMs) = Ms;
  }
}

// GPU-side serialization: does a tiny kernel on the legacy stream wait for s1's spin?
// Two things besides serialization can make the host wait here (an H200 once read
// SERIALIZED for a non-blocking s1 too): the first launch of `tiny` loads its module
// (CUDA_MODULE_LOADING=LAZY, the default), which waits for running kernels; and what
// cudaStreamSynchronize(cudaStreamLegacy) waits for is not what is measured. So
// `tiny` is launched once before, and the wait is for an event recorded right after it
// on the legacy stream: that event completes when the tiny kernel has run. Returns the ms.
double legacyWaitMs(cudaStream_t S1, long long Cycles) {
  tiny<<<1, 1>>>(nullptr);
  cudaDeviceSynchronize();
  cudaEvent_t TinyDone;
  cudaEventCreateWithFlags(&TinyDone, cudaEventDisableTiming);
  spin<<<1, 1, 0, S1>>>(Cycles);
  double T0 = nowMs();
  tiny<<<1, 1>>>(nullptr);
  cudaEventRecord(TinyDone, cudaStreamLegacy);
  cudaEventSynchronize(TinyDone);
  double Ms = nowMs() - T0;
  cudaEventDestroy(TinyDone);
  return Ms;
}

void printTable(const DeviceInfo &D, double SpinMs, const std::vector<Result> &Results, const bool LegacyWaits[2],
                const double LegacyMs[2]) {
  const cudaDeviceProp &Prop = D.Prop;
  auto Blocks = [&](double Ms) { return Ms > 0.8 * SpinMs; };
  std::printf("syncwatch-calibrate: %s (sm_%d%d), driver %d, runtime %d, %d copy engine(s), concurrent kernels %s, "
              "stream priorities %d (lowest) .. %d (highest); a %.0f ms kernel on s1\n",
              Prop.name, Prop.major, Prop.minor, D.Driver, D.Runtime, Prop.asyncEngineCount,
              Prop.concurrentKernels ? "yes" : "no", D.Least, D.Greatest, SpinMs);
  std::printf("%-26s %-34s %20s %20s\n", "call", "case", "s1 non-blocking", "s1 blocking");
  for (const Result &R : Results) {
    char A[40], B[40];
    std::snprintf(A, sizeof A, "%8.3f ms%s", R.NonBlockingMs, Blocks(R.NonBlockingMs) ? " BLOCKS" : "       ");
    std::snprintf(B, sizeof B, "%8.3f ms%s", R.BlockingMs, Blocks(R.BlockingMs) ? " BLOCKS" : "       ");
    std::printf("%-26s %-34s %20s %20s%s%s\n", R.Api.c_str(), R.What.c_str(), A, B, R.Ok ? "" : "  error: ",
                R.Ok ? "" : R.Error.c_str());
  }
  std::printf("%-26s %-34s %8.3f ms%s %8.3f ms%s\n", "kernel launch", "legacy stream, then wait", LegacyMs[0],
              LegacyWaits[0] ? " SERIALIZED" : "           ", LegacyMs[1], LegacyWaits[1] ? " SERIALIZED" : "");
}

// The profile (JSON) that syncwatch-lint --profile and libsyncwatch read; false when Out
// cannot be opened.
bool writeProfile(const std::string &Out, const DeviceInfo &D, double SpinMs, const std::vector<Result> &Results,
                  const bool LegacyWaits[2]) {
  const cudaDeviceProp &Prop = D.Prop;
  auto Blocks = [&](double Ms) { return Ms > 0.8 * SpinMs; };
  FILE *F = std::fopen(Out.c_str(), "w");
  if (!F)
    return false;
  std::fprintf(F, "{\n  \"schema\": \"syncwatch-profile-1\",\n");
  std::fprintf(F, "  \"device\": {\"name\": \"%s\", \"computeCapability\": \"%d.%d\", \"driverVersion\": %d, "
                  "\"runtimeVersion\": %d, \"asyncEngineCount\": %d, \"concurrentKernels\": %s, "
                  "\"multiProcessorCount\": %d, \"streamPriorityLeast\": %d, \"streamPriorityGreatest\": %d},\n",
               jsonEscape(Prop.name).c_str(), Prop.major, Prop.minor, D.Driver, D.Runtime, Prop.asyncEngineCount,
               Prop.concurrentKernels ? "true" : "false", Prop.multiProcessorCount, D.Least, D.Greatest);
  std::fprintf(F, "  \"spinMs\": %.1f,\n  \"legacyStream\": {\"waitsForNonBlockingStream\": %s, "
                  "\"waitsForBlockingStream\": %s},\n  \"calls\": [\n",
               SpinMs, LegacyWaits[0] ? "true" : "false", LegacyWaits[1] ? "true" : "false");
  for (std::size_t I = 0; I < Results.size(); ++I) {
    const Result &R = Results[I];
    std::fprintf(F, "    {\"api\": \"%s\", \"case\": \"%s\", \"nonBlockingMs\": %.3f, \"blockingMs\": %.3f, "
                    "\"blocksDevice\": %s, \"blocksBehindBlockingStreams\": %s, \"ok\": %s}%s\n",
                 R.Api.c_str(), jsonEscape(R.What).c_str(), R.NonBlockingMs, R.BlockingMs,
                 Blocks(R.NonBlockingMs) ? "true" : "false",
                 !Blocks(R.NonBlockingMs) && Blocks(R.BlockingMs) ? "true" : "false", R.Ok ? "true" : "false",
                 I + 1 < Results.size() ? "," : "");
  }
  std::fprintf(F, "  ]\n}\n");
  std::fclose(F);
  return true;
}

} // namespace

// Options and device; the cases timed with s1 non-blocking, then blocking (and the legacy
// stream's wait each time); then the table and the profile.
int main(int argc, char **argv) {
  std::string Out = "syncwatch-profile.json";
  double SpinMs = 50;
  if (!parseOptions(argc, argv, Out, SpinMs))
    return 2;
  int Count = 0;
  if (cudaGetDeviceCount(&Count) != cudaSuccess || Count == 0) {
    std::fprintf(stderr, "syncwatch-calibrate: no CUDA GPU here: nothing to measure\n");
    return 3;
  }
  DeviceInfo D = queryDevice();
  long long Cycles = static_cast<long long>(SpinMs * D.Khz);
  Buffers B;
  allocate(B);
  std::vector<Case> Cases = safeCases(B);

  std::vector<Result> Results;
  bool LegacyWaits[2] = {false, false};
  double LegacyMs[2] = {0, 0};
  for (int Mode = 0; Mode < 2; ++Mode) {  // 0: s1 non-blocking, 1: s1 blocking
    cudaStream_t S1;
    if (Mode == 0)
      cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking);
    else
      cudaStreamCreate(&S1);
    timeCases(Cases, Results, Mode, S1, Cycles);
    LegacyMs[Mode] = legacyWaitMs(S1, Cycles);
    LegacyWaits[Mode] = LegacyMs[Mode] > 0.8 * SpinMs;
    cudaDeviceSynchronize();
    cudaStreamDestroy(S1);
  }

  printTable(D, SpinMs, Results, LegacyWaits, LegacyMs);
  if (!writeProfile(Out, D, SpinMs, Results, LegacyWaits)) {
    std::fprintf(stderr, "syncwatch-calibrate: cannot write '%s'\n", Out.c_str());
    return 2;
  }
  std::printf("syncwatch-calibrate: profile written to %s\n", Out.c_str());
  cudaFree(B.Dev);
  cudaFree(B.Dev2);
  cudaFreeHost(B.Pinned);
  cudaStreamDestroy(B.S2);
  return 0;
}
