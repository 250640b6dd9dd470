// The CUPTI subscription: one subscriber, callbacks enabled only for the catalogued runtime
// and driver APIs (rules/cuda_api.def), each decoded into an ApiCallback for the handlers
// (recorder/ApiHandler.h); launch callbacks and kernel records switched on and off as they
// come to matter; activity records for copies, memsets, kernels and streams. start() runs
// from libsyncwatch.cpp: a constructor under LD_PRELOAD, or CUDA's injection entry point.
#include "Subscriber.h"

#include "CallDecoding.h"
#include "CuptiSharing.h"
#include "GuestClock.h"
#include "NvtxSteps.h"
#include "Session.h"
#include "../entrypoints/EntryPointTiming.h"

#include "../recorder/ApiHandler.h"
#include "../recorder/HostClock.h"
#include "../recorder/Recorder.h"
#include "../recorder/SelfStats.h"
#include "../recorder/Stderr.h"
#include "../recorder/StepTracker.h"
#include "../sites/PythonStacks.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/source_hash.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace syncwatch::runtime {

Startup *Start = nullptr;

namespace {

std::atomic<bool> Started{false};

Recorder *TheRecorder = nullptr;
std::once_flag RecorderOnce;

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

std::atomic<bool> LaunchCallbacksOn{false};  // the deferrable launch callbacks (enableLaunchCallbacks)


void traceKernels() {
  if (KernelsOn.load(std::memory_order_relaxed) || KernelsOn.exchange(true))
    return;
  cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (selfStatsOn())
    countToggle(Toggle::KernelsOn);
  std::uint64_t Now = cuptiNow();
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
void enableLaunchCallbacks() {
  if (LaunchCallbacksOn.load(std::memory_order_relaxed) || LaunchCallbacksOn.exchange(true))
    return;
  for (auto [Domain, Id] : Start->DeferredLaunchIds)
    cuptiSharing().enableOurs(1, Domain, Id);
  if (TheRecorder)  // none yet at start()
    TheRecorder->launchCallbacks(true, cuptiNow());
  if (selfStatsOn())
    countToggle(Toggle::LaunchesOn);
}
void disableLaunchCallbacks() {
  if (KernelMode == KernelTrace::Always || !LaunchCallbacksOn.exchange(false))
    return;
  for (auto [Domain, Id] : Start->DeferredLaunchIds)
    cuptiSharing().enableOurs(0, Domain, Id);
  recorder().launchCallbacks(false, cuptiNow());
  if (selfStatsOn())
    countToggle(Toggle::LaunchesOff);
}

void onApiOwn(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data);

// The process's CuptiSharing, set before the subscription (so before any callback): the
// callback's check is one load, not a call into another unit and a static's guard.
CuptiSharing *Sharing = nullptr;

void CUPTIAPI onApi(void *, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) {
  if (InForkedChild.load(std::memory_order_relaxed))
    return;
  if (Sharing->guestActive()) [[unlikely]] {
    // A profiler that shares the subscription (CuptiSharing.h): its callback outside
    // syncwatch's timing of the call - before at entry, after at exit.
    bool Api = Domain == CUPTI_CB_DOMAIN_RUNTIME_API || Domain == CUPTI_CB_DOMAIN_DRIVER_API;
    bool Exit = Api && static_cast<const CUpti_CallbackData *>(Data)->callbackSite == CUPTI_API_EXIT;
    if (!Exit)
      Sharing->toGuest(Domain, Id, Data);
    if (Sharing->oursOn(Domain, Id))
      onApiOwn(Domain, Id, Data);
    if (Exit)
      Sharing->toGuest(Domain, Id, Data);
    return;
  }
  onApiOwn(Domain, Id, Data);
}

void onApiOwn(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) {
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
  const CallbackInfo &Info = infoOf(Domain, Id);
  if (selfStatsOn()) [[unlikely]] {
    std::uint64_t T0 = hostTicks();
    if (Entry)
      onApiEnter(decodeEntry(Domain, Id, Cb, Info.Launch, Info.CreatesStream, Info.Capture), Info);
    else
      onApiExit(decodeExit(Domain, Id, Cb, Info.Capture), Info);
    countCallback(keyOf(Domain, Id), Entry, hostTicks() - T0);
    return;
  }
  if (Entry)
    onApiEnter(decodeEntry(Domain, Id, Cb, Info.Launch, Info.CreatesStream, Info.Capture), Info);
  else
    onApiExit(decodeExit(Domain, Id, Cb, Info.Capture), Info);
}

// While a graph capture is open, a query of an event recorded into it breaks the capture
// (cudaErrorCapturedEvent), and so do some queries of events recorded before it: the event
// queries' callbacks, off otherwise (enableCatalogued), are on then, so that the call that
// broke a capture is named. Launches are on too: a legacy-stream launch breaks a blocking
// stream's capture.
void capturesOpen(bool Open) {
  for (auto [Domain, Id] : Start->CaptureOnlyIds)
    cuptiSharing().enableOurs(Open ? 1 : 0, Domain, Id);
  if (Open)
    enableLaunchCallbacks();
}

// The node count of a graph a capture made (cuGraphGetNodes, looked up: see startActivity).
std::uint32_t graphNodes(const void *Graph) {
  using GetNodes = int (*)(const void *, void *, std::size_t *);
  static const auto Get = reinterpret_cast<GetNodes>(::dlsym(RTLD_DEFAULT, "cuGraphGetNodes"));
  std::size_t Count = 0;
  return Get && Graph && Get(Graph, nullptr, &Count) == 0 ? static_cast<std::uint32_t>(Count) : 0;
}

// PyTorch's current stream as the engine names streams (TorchStreams.h): CUPTI's id.
std::uint32_t streamIdOf(const void *Context, const void *Stream) {
  std::uint32_t Id = 0;
  return cuptiGetStreamIdEx(static_cast<CUcontext>(const_cast<void *>(Context)),
                            static_cast<CUstream>(const_cast<void *>(Stream)), 0, &Id) == CUPTI_SUCCESS
             ? Id
             : UINT32_MAX;
}


// SYNCWATCH_FLOOR=1: the same subscription and callbacks doing nothing - the floor any
// CUPTI tool pays, which the overhead benchmark compares syncwatch against.
void CUPTIAPI onApiFloor(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// Activity records: copies, memsets, streams (kernels on demand). The driver is loaded by
// now (CUPTI needs it); its queries are looked up, not linked, so that libsyncwatch.so
// loads on machines without a driver.
void startActivity(bool Floor = false) {
  bindDriver(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD));
  registerActivityBuffers(Floor, Start->Cfg.ActivityBufferKb, Start->Cfg.CuptiDeviceBufferKb);
  cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_STREAM);
  if (KernelMode == KernelTrace::Always) {
    KernelsOn.store(true);
    KernelsOnSince.store(0);
    cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
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
    if (Api && Api->Family == ApiFamily::EventQuery) {
      Ids[Id] = callbackInfoOf(*Api);
      Start->CaptureOnlyIds.push_back({Domain, Id});  // but while a capture is open (capturesOpen)
      continue;
    }
    if (Api) {
      Ids[Id] = callbackInfoOf(*Api);
      Ids[Id].Capture = captureCallOf(Name, Api->Capture == CaptureUse::Begins, Api->Capture == CaptureUse::Ends);
      if (DeferLaunches && launchCallbackDeferrable(Domain, Id)) {
        Start->DeferredLaunchIds.push_back({Domain, Id});
        continue;
      }
      cuptiSharing().enableOurs(1, Domain, Id);
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
  if (!cuptiSharing().enableOurDomain(true, CUPTI_CB_DOMAIN_NVTX))
    Start->ConfigMessages += "syncwatch: SYNCWATCH_STEP: CUPTI's NVTX callbacks are unavailable; steps are not seen\n";
}

// Who holds CUPTI when syncwatch cannot subscribe: a tool that subscribed through these
// exports before syncwatch did, another copy of libsyncwatch.so, or an injected profiler.
std::string heldBy() {
  std::string Who = cuptiSharing().holder();
  if (!Who.empty())
    return Who + " subscribed to CUPTI first and holds it (CUPTI takes one subscriber on drivers before r610)";
  Dl_info Mine, First;
  void *Found = ::dlsym(RTLD_DEFAULT, "cuptiSubscribe");
  if (::dladdr(reinterpret_cast<void *>(&heldBy), &Mine) && Found && ::dladdr(Found, &First) && First.dli_fname &&
      Mine.dli_fname && std::string_view(First.dli_fname) != Mine.dli_fname &&
      std::string_view(First.dli_fname).find("libsyncwatch") != std::string_view::npos)
    return std::string("another copy of libsyncwatch.so (") + First.dli_fname + ") is already watching this process";
  return "another profiler (Nsight Systems, compute-sanitizer, a CUPTI tool injected at start) already holds CUPTI";
}

// Another tool holds CUPTI (drivers before r610 take one subscriber): the blocking entry
// points are timed by syncwatch's own definitions of them, through the same handlers, on
// the monotonic clock. No GPU record comes: what a wait waited for, copies' memory and
// serialization are not seen, and the report says so (Recorder::setWithoutCupti).
void noAction() {}
std::uint64_t monotonicNs() {
  timespec T;
  ::clock_gettime(CLOCK_MONOTONIC, &T);
  return static_cast<std::uint64_t>(T.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(T.tv_nsec);
}

void startWithoutCupti(std::string HeldBy) {
  Start->WithoutCupti = std::move(HeldBy);
  // Said at exit when no timed entry point was called (a program with cudart linked in
  // statically never reaches them).
  Start->NotActive = "syncwatch: not active: " + Start->WithoutCupti +
                     "; no call reached the CUDA entry points syncwatch times without CUPTI (a program with the "
                     "CUDA runtime linked in statically, nvcc's default, is not seen); the program ran without it\n";
  Start->Cfg.Kernels = KernelMode = KernelTrace::Off;
  startHostClock(monotonicNs);
  HandlerHooks Hooks;
  Hooks.TheRecorder = recorder;
  Hooks.EnableLaunches = Hooks.DisableLaunches = Hooks.TraceKernels = noAction;
  Hooks.AutoKernels = false;
  Hooks.ThresholdNs = Start->Cfg.ThresholdNs;
  setHandlerHooks(Hooks);
  EntryPointsTimed.store(true);
}

void startOnce() {
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
    forgetSignalPipe();
  });
  prepareSourceHashing();  // before the atexit handler: see source_hash.h
  std::atexit([] { finishOnce("at exit"); });
  // SYNCWATCH_FLOOR (bench/runtime_overhead.sh): what CUPTI alone costs, with callbacks that
  // do nothing. 1: every catalogued callback, launches included - what any CUPTI tool that
  // watches these APIs pays. activity: syncwatch's own subscription (launch callbacks left
  // off, as syncwatch leaves them until a launch can matter) and its activity records,
  // dropped unread - what syncwatch cannot get below without seeing less. callbacks: that
  // subscription without the activity records, so that the two floors' difference is what
  // the records alone cost (on the PyTorch loop the activity floor was 1.04-1.12x of plain
  // between processes; timed within one process, the default kinds cost nothing resolvable:
  // tests/gpu/issue40_toggle.sh).
  const char *FloorEnv = std::getenv("SYNCWATCH_FLOOR");
  bool FloorActivity = FloorEnv && std::string_view(FloorEnv) == "activity";
  bool FloorCallbacks = FloorEnv && std::string_view(FloorEnv) == "callbacks";
  bool Floor = FloorActivity || FloorCallbacks || (FloorEnv && *FloorEnv == '1');
  Sharing = &cuptiSharing();
  if (!Start->Cfg.ShareCupti)
    Sharing->disable();
  CUptiResult R = Sharing->subscribeOurs(&Start->Subscriber, Floor ? onApiFloor : onApi, cuptiNow());
  if (R != CUPTI_SUCCESS) {
    const char *Text = nullptr;
    cuptiGetResultString(R, &Text);
    std::string Holder = R == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? heldBy() : std::string();
    if (!Holder.empty() && !Floor && Holder.find("libsyncwatch") == std::string::npos) {
      startWithoutCupti(Holder);
      return;
    }
    Start->NotActive = std::string("syncwatch: not active: ") +
                       (!Holder.empty() ? Holder
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
  Hooks.CapturesOpen = capturesOpen;
  Hooks.GraphNodes = graphNodes;
  Hooks.AutoKernels = KernelMode == KernelTrace::Auto;
  Hooks.ThresholdNs = Start->Cfg.ThresholdNs;
  Hooks.MeasureForNs = Start->Cfg.MeasureAll ? Start->Cfg.MeasureForNs : 0;
  setHandlerHooks(Hooks);
  setMeasureAll(Start->Cfg.MeasureAll);
  // (SYNCWATCH_MEASURE=steps: launches and kernels traced from the start, as with all, and
  // the fast path's filter off only while a step is open)
  bool MeasureFromStart = Start->Cfg.MeasureAll || Start->Cfg.MeasureSteps;
  // The floor measures what any CUPTI tool pays: every catalogued callback, launches too.
  bool Defer = !Floor || FloorActivity || FloorCallbacks;
  enableCatalogued(Start->Subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, Start->RuntimeIds, Defer);
  enableCatalogued(Start->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, Start->DriverIds, Defer);
  if (FloorActivity)
    startActivity(true);
  if (Floor)
    return;
  if (Start->Cfg.Stats)
    enableSelfStats(CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_DRIVER_TRACE_CBID_SIZE);
  // Context creation: the call it happens in is start-up, not a wait (ApiCall::CreatedContext).
  cuptiSharing().enableOurs(1, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
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
    cuptiSharing().enableOurKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
  startSteps(Start->Subscriber, Start->Cfg);
  watchForPython(Start->Cfg.Python);  // a no-op where the load-time watch is on
}

} // namespace

Recorder &recorder() {
  std::call_once(RecorderOnce, [] {
    writeStderr(Start->ConfigMessages);
    TheRecorder = new Recorder(Start->Cfg);
    if (!Start->WithoutCupti.empty())
      TheRecorder->setWithoutCupti(Start->WithoutCupti);
    TheRecorder->startDrainer();
    TheRecorder->kernelsTracedFrom(KernelsOnSince.load());
    if (!LaunchCallbacksOn.load())  // deferred at start (a Python process): not counted from 0
      TheRecorder->launchCallbacks(false, 0);
    installSignalHandlers();
    std::atexit(nameDevicesAtExit);
  });
  return *TheRecorder;
}

Recorder *recorderIfMade() { return TheRecorder; }

std::atomic<bool> EntryPointsTimed{false};  // (EntryPointTiming.h)

void markProfilerStep(bool Next) {
  thread_local const std::uint64_t Tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  onProfilerStep(Next, Tid, cuptiNow());
}

std::uint64_t cuptiNow() {
  std::uint64_t Now = 0;
  cuptiGetTimestamp(&Now);
  return guestClock().ownNow(Now);  // (a profiler's own clock, if one set it: GuestClock.h)
}

void start() { startOnce(); }

void prepareSteps(const std::string &StepPattern) {
  std::string Unseen = prepareNvtxInjection(StepPattern, reinterpret_cast<const void *>(realCupti().Subscribe));
  if (!Unseen.empty())
    StepsUnseen = new std::string(Unseen);
}

} // namespace syncwatch::runtime

// SYNCWATCH_BENCH_TOGGLE=1 only (Config::BenchToggle): switches syncwatch's callbacks and
// activity kinds off (0) and on again (1) for a benchmark that times the same steps with
// and without syncwatch in one process (bench/train_loop.py toggle); the subscription stays
// (a subscriber with nothing enabled cost the PyTorch loop nothing measurable,
// docs/benchmarks.md). Returns 0, or -1 where syncwatch is not subscribed or the
// variable is not set.
extern "C" __attribute__((visibility("default"))) int syncwatch_set_active(int On) {
  using namespace syncwatch::runtime;
  if (!Start || !Start->Cfg.BenchToggle || !Start->Subscriber)
    return -1;
  cuptiSharing().setOursActive(On != 0);
  return 0;
}
