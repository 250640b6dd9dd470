// The only code that touches CUPTI: one subscriber, callbacks enabled only for the
// catalogued runtime and driver APIs (rules/cuda_api.def), activity records for copies,
// memsets, kernels and streams. Everything it sees goes to the Recorder.
//
// libsyncwatch.so starts here, from a constructor under LD_PRELOAD or from CUDA's injection
// entry point (CUDA_INJECTION64_PATH -> InitializeInjection).
#include "../runtime/Recorder.h"

#include "syncwatch/catalogue.h"

#include <cupti.h>

#include <dlfcn.h>
#include <unordered_map>

#include <cxxabi.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>

namespace syncwatch::runtime {
namespace {

Recorder *TheRecorder = nullptr;
std::atomic<bool> Started{false};

// The catalogue name of each callback id, "" for ids syncwatch does not enable.
std::vector<std::string_view> RuntimeNames, DriverNames;

struct ThreadState {
  int Depth = 0;                 // a driver call inside a runtime call is not a second call
  bool Skip = false;             // this call cannot matter: not recorded at all
  std::uint64_t Enter = 0;
  RawStack Stack;
  // Stream handle -> created non-blocking? (cuStreamGetFlags, asked once per stream)
  std::unordered_map<const void *, bool> NonBlocking;
};
thread_local ThreadState Thread;

using StreamGetFlagsFn = int (*)(const void *, unsigned *);
StreamGetFlagsFn StreamGetFlags = nullptr;

// The stream a runtime launch goes to, or nullptr when the call is no plain launch.
bool launchStream(CUpti_CallbackId Id, const CUpti_CallbackData *Cb, const void **Stream) {
  switch (Id) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
    const auto *P = static_cast<const cudaLaunchKernel_v7000_params *>(Cb->functionParams);
    *Stream = P ? P->stream : nullptr;
    return P != nullptr;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
    const auto *P = static_cast<const cudaLaunchKernelExC_v11060_params *>(Cb->functionParams);
    if (!P || !P->config)
      return false;
    *Stream = P->config->stream;
    return true;
  }
  default:
    return false;
  }
}

// A launch onto a non-blocking stream can neither be held by the legacy stream nor make the
// host wait, so it is not recorded: launch-bound programs then pay no stack capture for
// their launches (measured in tests/gpu/run_gpu_tests.sh's overhead benchmark).
bool launchCannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb) {
  const void *S = nullptr;
  if (Domain != CUPTI_CB_DOMAIN_RUNTIME_API || !StreamGetFlags || !launchStream(Id, Cb, &S))
    return false;
  auto Handle = reinterpret_cast<std::uintptr_t>(S);
  if (Handle <= 2) // 0 or cudaStreamLegacy, or cudaStreamPerThread: these can serialize
    return false;
  auto It = Thread.NonBlocking.find(S);
  if (It == Thread.NonBlocking.end()) {
    unsigned Flags = 0;
    bool NB = StreamGetFlags(S, &Flags) == 0 && (Flags & kNonBlockingStreamFlag);
    It = Thread.NonBlocking.emplace(S, NB).first;
  }
  return It->second;
}

// Kernel activity records are what a CUPTI tool pays most for on launch-bound programs
// (shared/facts/gpu-truth-table.md: +2.8 us per launch). The engine needs them for two
// things only: serialization (work on the legacy or a blocking stream held by another
// stream) and naming the kernel a slow call waited for. So in the default `auto` mode they
// are turned on at the first launch that could serialize (legacy, per-thread or blocking
// stream; any launch syncwatch cannot classify, such as a driver-API launch) and at the
// first call that stalled the host; a program that only launches onto non-blocking streams
// and never stalls pays for none. Enabling happens at the launch's entry, before its
// kernel exists, so every kernel that can take part in a serialization is traced.
KernelTrace KernelMode = KernelTrace::Auto;
std::atomic<bool> KernelsOn{false};

void traceKernels() {
  if (!KernelsOn.load(std::memory_order_relaxed) && !KernelsOn.exchange(true))
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

bool isLaunch(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  const std::vector<std::string_view> &Names = Domain == CUPTI_CB_DOMAIN_RUNTIME_API ? RuntimeNames : DriverNames;
  if (Id >= Names.size() || Names[Id].empty())
    return false;
  const ApiInfo *Api = findApi(Names[Id]);
  return Api && Api->Family == ApiFamily::Launch;
}

std::uint64_t threadId() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

void CUPTIAPI onApi(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) {
  const auto *Cb = static_cast<const CUpti_CallbackData *>(Data);
  if (Cb->callbackSite == CUPTI_API_ENTER) {
    if (Thread.Depth++ > 0)
      return;
    Thread.Skip = launchCannotMatter(Domain, Id, Cb);
    if (Thread.Skip)
      return;
    if (KernelMode == KernelTrace::Auto && isLaunch(Domain, Id))
      traceKernels();
    captureStack(Thread.Stack);
    cuptiGetTimestamp(&Thread.Enter);
    return;
  }
  if (--Thread.Depth > 0 || Thread.Skip)
    return;
  std::uint64_t Exit = 0;
  cuptiGetTimestamp(&Exit);
  const std::vector<std::string_view> &Names = Domain == CUPTI_CB_DOMAIN_RUNTIME_API ? RuntimeNames : DriverNames;
  ApiCall C;
  C.Correlation = Cb->correlationId;
  C.Thread = threadId();
  C.Api = Id < Names.size() && !Names[Id].empty() ? Names[Id] : internApiName(Cb->functionName);
  C.Enter = Thread.Enter;
  C.Exit = Exit;
  if (KernelMode == KernelTrace::Auto && C.duration() >= TheRecorder->config().ThresholdNs)
    traceKernels();
  TheRecorder->addCall(std::move(C), Thread.Stack);
}

// SYNCWATCH_FLOOR=1: the same subscription and callbacks doing nothing - the floor any
// CUPTI tool pays, which the overhead benchmark compares syncwatch against.
void CUPTIAPI onApiFloor(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// Records reach the engine only when CUPTI hands a buffer back, and the engine can pair a
// record with its call only while that call is still in its window (EventWindow carries
// the newest quarter of it). Small buffers and a periodic flush keep that delay to a few
// thousand records or FlushPeriodMs, far inside SYNCWATCH_WINDOW's default 65536 events.
constexpr std::size_t BufferSize = 1 << 20;
constexpr std::uint32_t FlushPeriodMs = 100;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, BufferSize));
  *Size = *Buffer ? BufferSize : 0;
  *MaxRecords = 0;
}

std::string demangle(const char *Name) {
  if (!Name)
    return "";
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> D(abi::__cxa_demangle(Name, nullptr, nullptr, &Status), std::free);
  std::string S = Status == 0 && D ? D.get() : Name;
  auto Paren = S.find('(');
  return Paren == std::string::npos ? S : S.substr(0, Paren);
}

// CUPTI shares one name string among all records of the same kernel, so a kernel is
// demangled once, not once per launch.
const std::string &kernelName(const char *Mangled) {
  static std::mutex M;
  static std::unordered_map<const char *, std::string> Names;
  std::lock_guard<std::mutex> L(M);
  auto It = Names.find(Mangled);
  if (It == Names.end())
    It = Names.emplace(Mangled, demangle(Mangled)).first;
  return It->second;
}

StreamFlag flagOf(CUpti_ActivityStreamFlag F) {
  switch (F) {
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL: return StreamFlag::Legacy;
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT: return StreamFlag::Blocking;
  case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING: return StreamFlag::NonBlocking;
  default: return StreamFlag::Unknown;
  }
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *Buffer, size_t, size_t Valid) {
  CUpti_Activity *Record = nullptr;
  std::vector<GpuWork> Work;  // handed over under one lock per buffer, not one per record
  while (cuptiActivityGetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
    switch (Record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto *R = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(Record);
      GpuWork W;
      W.Kind = GpuKind::Memcpy;
      // Runtime calls are what the callbacks saw: link the copy to the runtime call.
      W.Correlation = R->runtimeCorrelationId ? R->runtimeCorrelationId : R->correlationId;
      W.Stream = R->streamId;
      W.Start = R->start;
      W.End = R->end;
      W.Bytes = R->bytes;
      W.CopyKind = R->copyKind;
      W.Src = static_cast<MemoryKind>(R->srcKind <= 3 ? R->srcKind : 0);
      W.Dst = static_cast<MemoryKind>(R->dstKind <= 3 ? R->dstKind : 0);
      W.Async = (R->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
      Work.push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto *R = reinterpret_cast<const CUpti_ActivityMemset4 *>(Record);
      GpuWork W;
      W.Kind = GpuKind::Memset;
      W.Correlation = R->correlationId;
      W.Stream = R->streamId;
      W.Start = R->start;
      W.End = R->end;
      W.Bytes = R->bytes;
      Work.push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto *R = reinterpret_cast<const CUpti_ActivityKernel10 *>(Record);
      GpuWork W;
      W.Kind = GpuKind::Kernel;
      W.Correlation = R->correlationId;
      W.Stream = R->streamId;
      W.Start = R->start;
      W.End = R->end;
      W.Name = kernelName(R->name);
      Work.push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto *R = reinterpret_cast<const CUpti_ActivityStream *>(Record);
      TheRecorder->addStream({R->streamId, flagOf(R->flag), static_cast<std::int32_t>(R->priority)});
      break;
    }
    default:
      break;
    }
  }
  TheRecorder->addWork(std::move(Work));
  std::free(Buffer);
}

void finishOnce(const char *Why) {
  if (!TheRecorder)
    return;
  cuptiActivityFlushAll(1);
  TheRecorder->finish(Why);
}

struct sigaction PreviousInt, PreviousTerm;

// Reports, then lets the program's own handling of the signal go on.
void onSignal(int Sig) {
  finishOnce(Sig == SIGINT ? "interrupted by SIGINT" : "terminated by SIGTERM");
  sigaction(Sig, Sig == SIGINT ? &PreviousInt : &PreviousTerm, nullptr);
  raise(Sig);
}

void installSignalHandlers() {
  struct sigaction A;
  std::memset(&A, 0, sizeof A);
  A.sa_handler = onSignal;
  sigemptyset(&A.sa_mask);
  sigaction(SIGINT, nullptr, &PreviousInt);
  sigaction(SIGTERM, nullptr, &PreviousTerm);
  // A program that ignores a signal keeps ignoring it.
  if (PreviousInt.sa_handler != SIG_IGN)
    sigaction(SIGINT, &A, nullptr);
  if (PreviousTerm.sa_handler != SIG_IGN)
    sigaction(SIGTERM, &A, nullptr);
}

void enableCatalogued(CUpti_SubscriberHandle Sub, CUpti_CallbackDomain Domain, CUpti_CallbackId Count,
                      std::vector<std::string_view> &Names) {
  Names.assign(Count, std::string_view());
  for (CUpti_CallbackId Id = 1; Id < Count; ++Id) {
    const char *Name = nullptr;
    if (cuptiGetCallbackName(Domain, Id, &Name) != CUPTI_SUCCESS || !Name)
      continue;
    if (const ApiInfo *Api = findApi(Name)) {
      Names[Id] = Api->Name;
      cuptiEnableCallback(1, Sub, Domain, Id);
    }
  }
}

void start() {
  if (Started.exchange(true))
    return;
  std::string Messages;
  Config Cfg = readConfig(Messages);
  std::cerr << Messages;
  const char *FloorEnv = std::getenv("SYNCWATCH_FLOOR");
  bool Floor = FloorEnv && *FloorEnv == '1';
  CUpti_SubscriberHandle Sub;
  CUptiResult R = cuptiSubscribe(&Sub, Floor ? onApiFloor : onApi, nullptr);
  if (R != CUPTI_SUCCESS) {
    const char *Text = nullptr;
    cuptiGetResultString(R, &Text);
    std::cerr << "syncwatch: not active: "
              << (R == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                      ? "another profiler (Nsight Systems, torch.profiler...) already holds CUPTI"
                      : std::string("CUPTI is unavailable (") + (Text ? Text : "unknown error") +
                            "; no GPU or no CUDA driver?)")
              << "; the program runs without it\n";
    return;
  }
  enableCatalogued(Sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, RuntimeNames);
  enableCatalogued(Sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, DriverNames);
  if (Floor)
    return;
  TheRecorder = new Recorder(Cfg);
  // The driver is loaded by now (CUPTI needs it); looked up, not linked, so that
  // libsyncwatch.so loads on machines without a driver.
  void *Driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  StreamGetFlags = reinterpret_cast<StreamGetFlagsFn>(dlsym(Driver ? Driver : RTLD_DEFAULT, "cuStreamGetFlags"));
  cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  cuptiActivityFlushPeriod(FlushPeriodMs);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
  KernelMode = Cfg.Kernels;
  if (KernelMode == KernelTrace::Always)
    traceKernels();
  std::atexit([] { finishOnce("at exit"); });
  installSignalHandlers();
}

} // namespace
} // namespace syncwatch::runtime

extern "C" {
// CUDA_INJECTION64_PATH=libsyncwatch.so: the driver calls this when CUDA initializes.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  syncwatch::runtime::start();
  return 1;
}
}

// LD_PRELOAD=libsyncwatch.so: start when the library loads.
__attribute__((constructor)) static void syncwatchOnLoad() {
  if (const char *Off = std::getenv("SYNCWATCH_DISABLE"); Off && *Off == '1')
    return;
  syncwatch::runtime::start();
}
