// The only code that touches CUPTI: one subscriber, callbacks enabled only for the
// catalogued runtime and driver APIs (rules/cuda_api.def), activity records for copies,
// memsets, kernels and streams. Everything it sees goes to the Recorder.
//
// libsyncwatch.so starts here, from a constructor under LD_PRELOAD or from CUDA's injection
// entry point (CUDA_INJECTION64_PATH -> InitializeInjection).
#include "../runtime/Recorder.h"
#include "CallFilter.h"

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

// What syncwatch knows of each callback id; empty names for ids it does not enable.
std::vector<CallbackInfo> RuntimeIds, DriverIds;

const CallbackInfo &infoOf(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  static const CallbackInfo None;
  const std::vector<CallbackInfo> &Ids = Domain == CUPTI_CB_DOMAIN_RUNTIME_API ? RuntimeIds : DriverIds;
  return Id < Ids.size() ? Ids[Id] : None;
}

struct ThreadState {
  int Depth = 0;                 // a driver call inside a runtime call is not a second call
  bool Skip = false;             // this call cannot matter: not recorded at all
  std::uint64_t Enter = 0;
  RawStack Stack;
};
thread_local ThreadState Thread;

// Kernel activity records are what a CUPTI tool pays most for on launch-bound programs
// (bench/runtime_overhead.sh: 0.3-0.8 us per launch on an H200). The engine needs them
// for three things only: serialization (work on the legacy or a blocking stream held by
// another stream), priority inversion, and naming the kernel a slow call waited for. So in
// the default `auto` mode they are turned on at the first work onto a blocking stream (or
// onto a stream syncwatch cannot read), at the creation of a high-priority stream, and at
// the first call that stalled the host (CallFilter.h has the details and what it misses).
// A program that launches only onto the legacy stream and non-blocking streams and never
// stalls - a PyTorch training loop without side streams - pays for none.
KernelTrace KernelMode = KernelTrace::Auto;
std::atomic<bool> KernelsOn{false};

void traceKernels() {
  if (KernelsOn.load(std::memory_order_relaxed) || KernelsOn.exchange(true))
    return;
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  std::uint64_t Now = 0;
  cuptiGetTimestamp(&Now);
  TheRecorder->kernelsTracedFrom(Now);
}

std::uint64_t threadId() {
  thread_local const std::uint64_t Tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  return Tid;
}

void CUPTIAPI onApi(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) {
  const auto *Cb = static_cast<const CUpti_CallbackData *>(Data);
  if (Cb->callbackSite == CUPTI_API_ENTER) {
    if (Thread.Depth++ > 0)
      return;
    const CallbackInfo &Info = infoOf(Domain, Id);
    EntryDecision D = decideAtEntry(Domain, Id, Cb, Info);
    if (KernelMode == KernelTrace::Auto && D.TraceKernels)
      traceKernels();
    Thread.Skip = !D.Record;
    if (Thread.Skip)
      return;
    captureStack(Thread.Stack);
    cuptiGetTimestamp(&Thread.Enter);
    return;
  }
  if (--Thread.Depth > 0 || Thread.Skip)
    return;
  std::uint64_t Exit = 0;
  cuptiGetTimestamp(&Exit);
  const CallbackInfo &Info = infoOf(Domain, Id);
  ApiCall C;
  C.Correlation = Cb->correlationId;
  C.Thread = threadId();
  C.Api = !Info.Name.empty() ? Info.Name : internApiName(Cb->functionName);
  C.Enter = Thread.Enter;
  C.Exit = Exit;
  // A slow cudaMallocHost or first cudaStreamCreate is busy on the host, not waiting for
  // kernels: only calls that can wait turn kernel tracing on.
  bool Stalled = KernelMode == KernelTrace::Auto && Info.CanWait && C.duration() >= TheRecorder->config().ThresholdNs;
  TheRecorder->addCall(std::move(C), Thread.Stack);
  if (Stalled)
    traceKernels();
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
// demangled once, not once per launch. Never destroyed: the exit-time flush (an atexit
// handler registered before this first use) runs after function-local statics are gone.
const std::string &kernelName(const char *Mangled) {
  static auto *M = new std::mutex;
  static auto *Names = new std::unordered_map<const char *, std::string>;
  std::lock_guard<std::mutex> L(*M);
  auto It = Names->find(Mangled);
  if (It == Names->end())
    It = Names->emplace(Mangled, demangle(Mangled)).first;
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
                      std::vector<CallbackInfo> &Ids) {
  Ids.assign(Count, CallbackInfo());
  for (CUpti_CallbackId Id = 1; Id < Count; ++Id) {
    const char *Name = nullptr;
    if (cuptiGetCallbackName(Domain, Id, &Name) != CUPTI_SUCCESS || !Name)
      continue;
    if (const ApiInfo *Api = findApi(Name)) {
      Ids[Id].Name = Api->Name;
      Ids[Id].Launch = Api->Family == ApiFamily::Launch;
      Ids[Id].ReleasesHostMemory = Api->Family == ApiFamily::HostFree || Api->Family == ApiFamily::HostUnregister;
      Ids[Id].CreatesStream = Api->Family == ApiFamily::StreamCreate;
      Ids[Id].CanWait = Api->Measured != MeasuredSync::ReturnsAtOnce && !Ids[Id].Launch;
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
  enableCatalogued(Sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, RuntimeIds);
  enableCatalogued(Sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, DriverIds);
  if (Floor)
    return;
  TheRecorder = new Recorder(Cfg);
  // The driver is loaded by now (CUPTI needs it); looked up, not linked, so that
  // libsyncwatch.so loads on machines without a driver.
  bindDriver(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD));
  cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  cuptiActivityFlushPeriod(FlushPeriodMs);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
  KernelMode = Cfg.Kernels;
  watchForPython(Cfg.Python);
  if (KernelMode == KernelTrace::Always)
    traceKernels();
  else
    TheRecorder->kernelsTracedFrom(UINT64_MAX);
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
