// The only code that touches CUPTI: one subscriber, callbacks enabled only for the
// catalogued runtime and driver APIs (rules/cuda_api.def), activity records for copies,
// memsets, kernels and streams. Everything it sees goes to the Recorder.
//
// libsyncwatch.so starts here, from a constructor under LD_PRELOAD or from CUDA's injection
// entry point (CUDA_INJECTION64_PATH -> InitializeInjection).
#include "../runtime/Recorder.h"
#include "../runtime/Stderr.h"
#include "../runtime/StepTracker.h"
#include "ApiHandler.h"
#include "CallFilter.h"
#include "HostClock.h"
#include "NvtxSteps.h"
#include "CudaPresence.h"
#include "SelfStats.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/source_hash.h"

#include <cupti.h>

#include <dlfcn.h>
#include <unordered_map>

#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace syncwatch::runtime {
namespace {

// The library lives inside other people's processes, and starts from a load-time
// constructor: nothing here may depend on the order in which static objects of this or any
// other library are constructed or destroyed. So every global is either constant-initialized
// (pointers, atomics, PODs) or created on the heap by start() and never destroyed (callbacks
// on other threads, and the program's own static destructors freeing CUDA memory, can come
// after exit() began). Nothing runs at load but reading the environment, the Python audit
// hook in a Python process, and - in a CUDA program only - subscribing to CUPTI (see the
// constructor at the end); the Recorder and the signal handlers come with the first CUDA
// event (a shell or `ls` under LD_PRELOAD gets nothing else), and all output is write(2).

// What start() learned, kept for the whole process.
struct Startup {
  Config Cfg;
  std::string ConfigMessages;   // bad SYNCWATCH_* values: said at the first CUDA call
  std::string NotActive;        // why CUPTI could not be used ("" when it could)
  CUpti_SubscriberHandle Subscriber = nullptr;
  // What syncwatch knows of each callback id; empty names for ids it does not enable.
  std::vector<CallbackInfo> RuntimeIds, DriverIds;
  // Launch callbacks are off until a launch can matter (see enableLaunchCallbacks).
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> DeferredLaunchIds;
};
Startup *Start = nullptr;
std::atomic<bool> Started{false};

Recorder *TheRecorder = nullptr;
std::once_flag RecorderOnce;
// Set in the child of a fork(): it inherits the parent's events but not its CUPTI state
// or threads, and must neither report them again nor call into CUPTI at exit.
std::atomic<bool> InForkedChild{false};

const CallbackInfo &infoOf(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  static const CallbackInfo None;
  const std::vector<CallbackInfo> &Ids = Domain == CUPTI_CB_DOMAIN_RUNTIME_API ? Start->RuntimeIds : Start->DriverIds;
  return Id < Ids.size() ? Ids[Id] : None;
}

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
std::atomic<std::uint64_t> KernelsOnSince{UINT64_MAX};  // CUPTI time; 0: from the start

void installSignalHandlers();

// The Recorder, created at the first CUDA event, on the thread that made it.
// The devices GPU records came from (ordinals below 64), named by UUID in the report so
// that `syncwatch merge` can say which GPU each rank used.
std::atomic<std::uint64_t> DevicesSeen{0};
void noteDevice(std::uint32_t Device) {
  // Read first: every record of a buffer names a device, almost always one already seen.
  std::uint64_t Bit = std::uint64_t{1} << (Device & 63);
  if (Device < 64 && !(DevicesSeen.load(std::memory_order_relaxed) & Bit))
    DevicesSeen.fetch_or(Bit, std::memory_order_relaxed);
}

// Every device's UUID ("GPU-8c0a...", as nvidia-smi -L prints it), asked of the driver once.
// The driver's entry points are looked up in the loaded libcuda (PyTorch loads it
// RTLD_LOCAL), not linked. They need no context, but they must run before libcuda's own exit
// handlers: measured on the H200, they answer from an atexit handler registered after cuInit
// and not from syncwatch's own (registered at load, so it runs after libcuda's teardown).
// So this runs from an atexit handler that the first CUDA event registers.
// Plain arrays, constant-initialized and never destroyed: this runs at exit, when a
// std::vector of this library may already be destroyed (a preloaded C++ program aborted
// with std::length_error on the H200 when it was one).
std::mutex UuidLock;  // trivially destructible in libstdc++
constexpr int kMaxDevices = 64;
char DeviceUuids[kMaxDevices][48] = {};  // by ordinal; "" when the driver did not say
int DevicesNamed = 0;
int DriverVersion = 0;  // cuDriverGetVersion: 13000 is CUDA 13.0
bool UuidsAsked = false;

void nameDevices() {
  std::lock_guard<std::mutex> G(UuidLock);
  if (UuidsAsked)
    return;
  UuidsAsked = true;
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using UuidFn = int (*)(unsigned char *, int);
  void *Driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void *Scope = Driver ? Driver : RTLD_DEFAULT;
  using VersionFn = int (*)(int *);
  if (auto Version = reinterpret_cast<VersionFn>(::dlsym(Scope, "cuDriverGetVersion")))
    Version(&DriverVersion);
  auto Count = reinterpret_cast<CountFn>(::dlsym(Scope, "cuDeviceGetCount"));
  auto Get = reinterpret_cast<GetFn>(::dlsym(Scope, "cuDeviceGet"));
  auto Uuid = reinterpret_cast<UuidFn>(::dlsym(Scope, "cuDeviceGetUuid_v2"));
  if (!Uuid)
    Uuid = reinterpret_cast<UuidFn>(::dlsym(Scope, "cuDeviceGetUuid"));
  int N = 0;
  if (Count && Get && Uuid && Count(&N) == 0)
    for (int Ordinal = 0; Ordinal < N && Ordinal < kMaxDevices; ++Ordinal) {
      int Device = 0;
      unsigned char Bytes[16];
      if (Get(&Device, Ordinal) == 0 && Uuid(Bytes, Device) == 0) {
        static const char *Hex = "0123456789abcdef";
        char *Out = DeviceUuids[Ordinal];
        std::memcpy(Out, "GPU-", 4);
        int At = 4;
        for (int I = 0; I < 16; ++I) {
          if (I == 4 || I == 6 || I == 8 || I == 10)
            Out[At++] = '-';
          Out[At++] = Hex[Bytes[I] >> 4];
          Out[At++] = Hex[Bytes[I] & 15];
        }
        Out[At] = '\0';
      }
      DevicesNamed = Ordinal + 1;
    }
  if (Driver)
    ::dlclose(Driver);  // drops the reference RTLD_NOLOAD took
}

void nameDevicesAtExit() {
  if (!InForkedChild.load())
    nameDevices();
}

// The devices seen, by UUID where the driver named them, else "device N".
std::string devicesSeenByUuid() {
  nameDevices();  // a no-op when the exit handler asked already
  std::lock_guard<std::mutex> G(UuidLock);
  std::string Out;
  std::uint64_t Seen = DevicesSeen.load();
  for (int Ordinal = 0; Ordinal < 64; ++Ordinal) {
    if (!(Seen >> Ordinal & 1))
      continue;
    bool Named = Ordinal < DevicesNamed && DeviceUuids[Ordinal][0] != '\0';
    Out += (Out.empty() ? "" : ", ") + (Named ? std::string(DeviceUuids[Ordinal]) : "device " + std::to_string(Ordinal));
  }
  return Out;
}

std::atomic<bool> LaunchCallbacksOn{false};  // the deferrable launch callbacks (enableLaunchCallbacks)

Recorder &recorder() {
  std::call_once(RecorderOnce, [] {
    writeStderr(Start->ConfigMessages);
    TheRecorder = new Recorder(Start->Cfg);
    TheRecorder->startDrainer();
    TheRecorder->kernelsTracedFrom(KernelsOnSince.load());
    if (!LaunchCallbacksOn.load())  // deferred at start (a Python process): not counted from 0
      TheRecorder->launchCallbacks(false, 0);
    installSignalHandlers();
    std::atexit(nameDevicesAtExit);
  });
  return *TheRecorder;
}

void traceKernels() {
  if (KernelsOn.load(std::memory_order_relaxed) || KernelsOn.exchange(true))
    return;
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (selfStatsOn())
    countToggle(Toggle::KernelsOn);
  std::uint64_t Now = 0;
  cuptiGetTimestamp(&Now);
  KernelsOnSince.store(Now);
  recorder().kernelsTracedFrom(Now);
}

// Launches are most of a launch-bound program's CUDA calls, and a CUPTI callback costs
// even when it does nothing (the floor in bench/runtime_overhead.sh). Launches onto the
// legacy stream and non-blocking streams of the default priority cannot matter to any
// rule until a blocking or high-priority stream exists (CallFilter.h). Their callbacks are
// on from the start all the same, counting each launch at its site without recording it
// (so that confirm knows which launch lines ran), and go off once they have long been of no
// use: kIdleLaunchesBeforeOff launches in a row that could not matter and came from sites
// already seen. The Recorder keeps when they were off (the recording's L records): a launch
// line not seen may have run then, and confirm says so instead of "not exercised".
std::uint64_t cuptiNow();
void enableLaunchCallbacks() {
  if (LaunchCallbacksOn.load(std::memory_order_relaxed) || LaunchCallbacksOn.exchange(true))
    return;
  for (auto [Domain, Id] : Start->DeferredLaunchIds)
    cuptiEnableCallback(1, Start->Subscriber, Domain, Id);
  if (TheRecorder)  // none yet at start()
    TheRecorder->launchCallbacks(true, cuptiNow());
  if (selfStatsOn())
    countToggle(Toggle::LaunchesOn);
}
void disableLaunchCallbacks() {
  if (KernelMode == KernelTrace::Always || !LaunchCallbacksOn.exchange(false))
    return;
  for (auto [Domain, Id] : Start->DeferredLaunchIds)
    cuptiEnableCallback(0, Start->Subscriber, Domain, Id);
  recorder().launchCallbacks(false, cuptiNow());
  if (selfStatsOn())
    countToggle(Toggle::LaunchesOff);
}

void CUPTIAPI onApi(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) {
  if (InForkedChild.load(std::memory_order_relaxed))
    return;
  if (Domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (Id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
      noteContextCreated();
    return;
  }
  if (Domain == CUPTI_CB_DOMAIN_NVTX) {  // SYNCWATCH_STEP only
    thread_local const std::uint64_t Tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    onNvtx(Id, Data, Tid, cuptiNow());
    return;
  }
  const auto *Cb = static_cast<const CUpti_CallbackData *>(Data);
  bool Entry = Cb->callbackSite == CUPTI_API_ENTER;
  if (selfStatsOn()) [[unlikely]] {
    std::uint64_t T0 = hostTicks();
    if (Entry)
      onApiEnter(Domain, Id, Cb, infoOf(Domain, Id));
    else
      onApiExit(Domain, Id, Cb, infoOf(Domain, Id));
    countCallback(Domain, Id, Entry, hostTicks() - T0);
    return;
  }
  if (Entry)
    onApiEnter(Domain, Id, Cb, infoOf(Domain, Id));
  else
    onApiExit(Domain, Id, Cb, infoOf(Domain, Id));
}

// PyTorch's current stream as the engine names streams (TorchStreams.h): CUPTI's id.
std::uint32_t streamIdOf(const void *Context, const void *Stream) {
  std::uint32_t Id = 0;
  return cuptiGetStreamIdEx(static_cast<CUcontext>(const_cast<void *>(Context)),
                            static_cast<CUstream>(const_cast<void *>(Stream)), 0, &Id) == CUPTI_SUCCESS
             ? Id
             : UINT32_MAX;
}

std::uint64_t cuptiNow() {
  std::uint64_t Now = 0;
  cuptiGetTimestamp(&Now);
  return Now;
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

// Activity buffers come from a small pool of mmap'ed 1 MiB blocks. malloc'ed ones, freed
// by the hundred over a copy-heavy run, stayed in the heap (glibc raises its mmap threshold
// after the first free): peak RSS grew by the buffers CUPTI ever held at once.
constexpr int kPooledBuffers = 4;
std::mutex BufferPoolLock;  // trivially destructible in libstdc++
uint8_t *BufferPool[kPooledBuffers] = {};
int BuffersPooled = 0;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  *Buffer = nullptr;
  {
    std::lock_guard<std::mutex> G(BufferPoolLock);
    if (BuffersPooled > 0)
      *Buffer = BufferPool[--BuffersPooled];
  }
  if (!*Buffer) {
    void *P = ::mmap(nullptr, BufferSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *Buffer = P == MAP_FAILED ? nullptr : static_cast<uint8_t *>(P);
  }
  *Size = *Buffer ? BufferSize : 0;
  *MaxRecords = 0;
}

void releaseBuffer(uint8_t *Buffer) {
  {
    std::lock_guard<std::mutex> G(BufferPoolLock);
    if (BuffersPooled < kPooledBuffers) {
      BufferPool[BuffersPooled++] = Buffer;
      return;
    }
  }
  ::munmap(Buffer, BufferSize);
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
  std::uint64_t T0 = selfStatsOn() ? hostTicks() : 0;
  std::size_t Records = 0;
  CUpti_Activity *Record = nullptr;
  // Handed over under one lock per buffer, not one per record; kept between buffers (this
  // runs on CUPTI's thread, and at exit's flush on the exiting one: a lock for that).
  static auto *WorkLock = new std::mutex;
  static auto *Work = new std::vector<GpuWork>;
  std::lock_guard<std::mutex> WorkGuard(*WorkLock);
  Work->clear();
  while (cuptiActivityGetNextRecord(Buffer, Valid, &Record) == CUPTI_SUCCESS) {
    ++Records;
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
      noteDevice(R->deviceId);
      Work->push_back(std::move(W));
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
      noteDevice(R->deviceId);
      Work->push_back(std::move(W));
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
      noteDevice(R->deviceId);
      Work->push_back(std::move(W));
      break;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto *R = reinterpret_cast<const CUpti_ActivityStream *>(Record);
      recorder().addStream({R->streamId, flagOf(R->flag), static_cast<std::int32_t>(R->priority)});
      break;
    }
    default:
      break;
    }
  }
  if (!Work->empty())
    recorder().addWork(*Work);
  releaseBuffer(Buffer);
  if (selfStatsOn())
    countActivityBuffer(Records, hostTicks() - T0);
}

std::atomic<bool> Finishing{false};

std::string_view callbackName(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  const char *Name = nullptr;
  if (cuptiGetCallbackName(Domain, Id, &Name) != CUPTI_SUCCESS || !Name)
    return "?";
  return Name;
}

void finishOnce(const char *Why) {
  if (InForkedChild.load() || Finishing.exchange(true))
    return;
  if (!TheRecorder) {
    // No CUDA event reached syncwatch. start() ran, so this is a CUDA program: say why.
    if (!Start->NotActive.empty())
      writeStderr(Start->ConfigMessages + Start->NotActive);
    return;
  }
  cuptiActivityFlushAll(1);
  TheRecorder->setGpu(devicesSeenByUuid());
  if (DriverVersion > 0)
    TheRecorder->setDriver("CUDA " + std::to_string(DriverVersion / 1000) + "." +
                           std::to_string(DriverVersion % 1000 / 10) + " driver API");
  TheRecorder->finish(Why);
  if (selfStatsOn())
    writeStderr(selfStatsText(callbackName));
}

// SIGINT/SIGTERM: the report is written by a thread of its own, woken through a pipe - a
// signal handler may only make async-signal-safe calls, and the interrupted thread may
// hold any lock (malloc's, the Recorder's). The handler waits for that thread a bounded
// time, then lets the signal do what it would have done. Installed with the first CUDA
// call, and only where the program left the signal's default action: a program that
// handles or ignores the signal itself keeps doing so (it exits through atexit, where the
// report is written anyway).
int WakePipe[2] = {-1, -1}, DonePipe[2] = {-1, -1};
struct sigaction PreviousInt, PreviousTerm;
constexpr int kReportWaitMs = 10'000;

void onSignal(int Sig) {
  if (!InForkedChild.load() && WakePipe[1] >= 0) {
    unsigned char S = static_cast<unsigned char>(Sig);
    if (::write(WakePipe[1], &S, 1) == 1) {
      pollfd P{DonePipe[0], POLLIN, 0};
      if (::poll(&P, 1, kReportWaitMs) <= 0)
        writeStderr("syncwatch: the report could not be written in time after the signal; no report\n");
    }
  }
  sigaction(Sig, Sig == SIGINT ? &PreviousInt : &PreviousTerm, nullptr);
  raise(Sig);
}

void *reportOnSignal(void *) {
  unsigned char Sig = 0;
  while (::read(WakePipe[0], &Sig, 1) < 0 && errno == EINTR) {
  }
  finishOnce(Sig == SIGINT ? "interrupted by SIGINT" : "terminated by SIGTERM");
  unsigned char Done = 1;
  (void)!::write(DonePipe[1], &Done, 1);
  return nullptr;
}

void installSignalHandlers() {
  sigaction(SIGINT, nullptr, &PreviousInt);
  sigaction(SIGTERM, nullptr, &PreviousTerm);
  bool Int = PreviousInt.sa_handler == SIG_DFL && !(PreviousInt.sa_flags & SA_SIGINFO);
  bool Term = PreviousTerm.sa_handler == SIG_DFL && !(PreviousTerm.sa_flags & SA_SIGINFO);
  if ((!Int && !Term) || ::pipe2(WakePipe, O_CLOEXEC) != 0)
    return;
  if (::pipe2(DonePipe, O_CLOEXEC) != 0) {
    ::close(WakePipe[0]);
    ::close(WakePipe[1]);
    WakePipe[0] = WakePipe[1] = -1;
    return;
  }
  // The reporting thread never takes the signals itself.
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  pthread_t T;
  bool Made = pthread_create(&T, nullptr, reportOnSignal, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  if (!Made)
    return;
  pthread_detach(T);
  struct sigaction A;
  std::memset(&A, 0, sizeof A);
  A.sa_handler = onSignal;
  sigemptyset(&A.sa_mask);
  if (Int)
    sigaction(SIGINT, &A, nullptr);
  if (Term)
    sigaction(SIGTERM, &A, nullptr);
}

// SYNCWATCH_FLOOR=activity: buffers are handed back unread.
void CUPTIAPI bufferDropped(CUcontext, uint32_t, uint8_t *Buffer, size_t, size_t) { releaseBuffer(Buffer); }

// Activity records: copies, memsets, streams (kernels on demand). The driver is loaded by
// now (CUPTI needs it); its queries are looked up, not linked, so that libsyncwatch.so
// loads on machines without a driver.
void startActivity(bool Floor = false) {
  bindDriver(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD));
  cuptiActivityRegisterCallbacks(bufferRequested, Floor ? bufferDropped : bufferCompleted);
  cuptiActivityFlushPeriod(FlushPeriodMs);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
  if (KernelMode == KernelTrace::Always) {
    KernelsOn.store(true);
    KernelsOnSince.store(0);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
}

void enableCatalogued(CUpti_SubscriberHandle Sub, CUpti_CallbackDomain Domain, CUpti_CallbackId Count,
                      std::vector<CallbackInfo> &Ids, bool DeferLaunches) {
  Ids.assign(Count, CallbackInfo());
  for (CUpti_CallbackId Id = 1; Id < Count; ++Id) {
    const char *Name = nullptr;
    if (cuptiGetCallbackName(Domain, Id, &Name) != CUPTI_SUCCESS || !Name)
      continue;
    const ApiInfo *Api = findApi(Name);
    // cudaEventQuery is catalogued for the analyzer (a finished polling loop drains work);
    // it never waits, and PyTorch's caching allocator polls events on every allocation:
    // a callback there would cost every process and tell nothing.
    if (Api && Api->Family == ApiFamily::EventQuery)
      continue;
    if (Api) {
      Ids[Id] = callbackInfoOf(*Api);
      if (DeferLaunches && launchCallbackDeferrable(Domain, Id)) {
        Start->DeferredLaunchIds.push_back({Domain, Id});
        continue;
      }
      cuptiEnableCallback(1, Sub, Domain, Id);
    }
  }
}

// Why SYNCWATCH_STEP cannot see steps, found at load (prepareNvtxInjection); said with the
// configuration's messages.
std::string *StepsUnseen = nullptr;

// SYNCWATCH_STEP: the NVTX ranges that are steps, from CUPTI's NVTX domain. With
// SYNCWATCH_MEASURE=steps, everything is measured while a step is open.
void startSteps(CUpti_SubscriberHandle Sub, const Config &Cfg) {
  if (Cfg.StepName.empty())
    return;
  std::function<void(bool)> OnOpen;
  if (Cfg.MeasureSteps)
    OnOpen = [](bool Open) { setMeasureAll(Open); };
  followSteps(new StepTracker(Cfg.StepName), [](const StepSpan &S) { recorder().noteStep(S); }, std::move(OnOpen));
  if (cuptiEnableDomain(1, Sub, CUPTI_CB_DOMAIN_NVTX) != CUPTI_SUCCESS)
    Start->ConfigMessages += "syncwatch: SYNCWATCH_STEP: CUPTI's NVTX callbacks are unavailable; steps are not seen\n";
}

void start() {
  if (Started.exchange(true))
    return;
  Start = new Startup;
  Start->Cfg = readConfig(Start->ConfigMessages);
  if (StepsUnseen)
    Start->ConfigMessages += *StepsUnseen;
  if (Start->Cfg.Disable)  // SYNCWATCH_DISABLE=1 reached through CUDA_INJECTION64_PATH too
    return;
  // A fork()ed child keeps the parent's memory, not its CUPTI session or threads.
  pthread_atfork(nullptr, nullptr, [] {
    InForkedChild.store(true);
    WakePipe[1] = -1;
  });
  prepareSourceHashing();  // before the atexit handler: see source_hash.h
  std::atexit([] { finishOnce("at exit"); });
  // SYNCWATCH_FLOOR (bench/runtime_overhead.sh): what CUPTI alone costs, with callbacks that
  // do nothing. 1: every catalogued callback, launches included - what any CUPTI tool that
  // watches these APIs pays. activity: syncwatch's own subscription (launch callbacks left
  // off, as syncwatch leaves them until a launch can matter) and its activity records,
  // dropped unread - what syncwatch cannot get below without seeing less.
  const char *FloorEnv = std::getenv("SYNCWATCH_FLOOR");
  bool FloorActivity = FloorEnv && std::string_view(FloorEnv) == "activity";
  bool Floor = FloorActivity || (FloorEnv && *FloorEnv == '1');
  CUptiResult R = cuptiSubscribe(&Start->Subscriber, Floor ? onApiFloor : onApi, nullptr);
  if (R != CUPTI_SUCCESS) {
    const char *Text = nullptr;
    cuptiGetResultString(R, &Text);
    Start->NotActive = std::string("syncwatch: not active: ") +
                       (R == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                            ? "another profiler (Nsight Systems, torch.profiler...) already holds CUPTI"
                            : std::string("CUPTI is unavailable (") + (Text ? Text : "unknown error") +
                                  "; no GPU or no CUDA driver?)") +
                       "; the program ran without it\n";
    return;
  }
  // The handlers are set up before any callback can reach them.
  KernelMode = Start->Cfg.Kernels;
  setIdleLaunchesBeforeOff(static_cast<unsigned>(std::min<std::uint64_t>(Start->Cfg.IdleLaunches, 1u << 30)));
  setTorchStreamChecks(Start->Cfg.TorchStreams);
  startHostClock(cuptiNow);
  HandlerHooks Hooks;
  Hooks.TheRecorder = recorder;
  Hooks.EnableLaunches = enableLaunchCallbacks;
  Hooks.DisableLaunches = disableLaunchCallbacks;
  Hooks.TraceKernels = traceKernels;
  Hooks.StreamIdOf = streamIdOf;
  Hooks.AutoKernels = KernelMode == KernelTrace::Auto;
  Hooks.ThresholdNs = Start->Cfg.ThresholdNs;
  Hooks.MeasureForNs = Start->Cfg.MeasureAll ? Start->Cfg.MeasureForNs : 0;
  setHandlerHooks(Hooks);
  setMeasureAll(Start->Cfg.MeasureAll);
  // (SYNCWATCH_MEASURE=steps: launches and kernels traced from the start, as with all, and
  // the fast path's filter off only while a step is open)
  bool MeasureFromStart = Start->Cfg.MeasureAll || Start->Cfg.MeasureSteps;
  // The floor measures what any CUPTI tool pays: every catalogued callback, launches too.
  bool Defer = !Floor || FloorActivity;
  enableCatalogued(Start->Subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, Start->RuntimeIds, Defer);
  enableCatalogued(Start->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, Start->DriverIds, Defer);
  if (FloorActivity)
    startActivity(true);
  if (Floor)
    return;
  if (Start->Cfg.Stats)
    enableSelfStats(CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_DRIVER_TRACE_CBID_SIZE);
  // Context creation: the call it happens in is start-up, not a wait (ApiCall::CreatedContext).
  cuptiEnableCallback(1, Start->Subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  KernelMode = Start->Cfg.Kernels;
  startActivity();
  // Counted from the first launch (see enableLaunchCallbacks) - but in a Python process they
  // stay off until a launch can matter, as before issue 37: on the H200, bench/train_loop.py's
  // first 500 steps were ~20% slower with them on from the start (8 interleaved rounds; the
  // steady state within noise). Its report then says coverage.launches "partial".
  bool Python = ::dlsym(RTLD_DEFAULT, "Py_IsInitialized") != nullptr;
  if (!Python || KernelMode == KernelTrace::Always || MeasureFromStart)
    enableLaunchCallbacks();
  if (MeasureFromStart && KernelMode != KernelTrace::Off) {
    // Every launch timed: its kernel's records from the first one on.
    KernelsOn.store(true);
    KernelsOnSince.store(0);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
  startSteps(Start->Subscriber, Start->Cfg);
  watchForPython(Start->Cfg.Python);  // a no-op where the load-time watch is on
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

// LD_PRELOAD=libsyncwatch.so: start when the library loads - in a CUDA program. CUPTI adds
// a thread as soon as a callback is enabled (CudaPresence.h), so a process that has no CUDA
// yet gets none: a Python process starts capture when torch or a CUDA extension loads
// CUDA; `syncwatch run` also sets CUDA_INJECTION64_PATH, by which the driver starts it at
// cuInit in any other process that loads CUDA later (a plugin dlopen'ed by a C++ program).
__attribute__((constructor)) static void syncwatchOnLoad() {
  // (Bad values are said by start(), at the first CUDA event: never in a non-CUDA process.)
  std::string Ignored;
  syncwatch::runtime::Config Cfg = syncwatch::runtime::readConfig(Ignored);
  if (Cfg.Disable)
    return;
  // NVTX reads its injection path at the program's first NVTX call: set before main.
  std::string Unseen = syncwatch::runtime::prepareNvtxInjection(Cfg.StepName, reinterpret_cast<const void *>(&cuptiSubscribe));
  if (!Unseen.empty())
    syncwatch::runtime::StepsUnseen = new std::string(Unseen);
  if (syncwatch::runtime::cudaProgramAtLoad()) {
    syncwatch::runtime::start();
    return;
  }
  bool Stacks = Cfg.Python;
  syncwatch::runtime::watchForPython(Stacks, [] { syncwatch::runtime::start(); });
}
