#include "CallFilter.h"

#include "TorchStreams.h"

#include "syncwatch/catalogue.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace syncwatch::runtime {
namespace {

DriverQueries Driver;
constexpr int kPointerAttributeMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kMemoryTypeHost = 1;         // CU_MEMORYTYPE_HOST: pinned host memory

// Bumped whenever host memory is unpinned or freed (every thread's pinned cache is stale)
// and whenever a stream is created (a destroyed stream's handle may come back with other
// flags): the per-thread caches below are then dropped.
std::atomic<std::uint64_t> HostMemoryEpoch{0}, StreamEpoch{0};

// Work has gone to a blocking stream: from then on legacy-stream launches can take part
// in a serialization and are recorded. Creating one is not enough: cuBLAS creates a
// blocking stream inside PyTorch's first matmul and never uses it (h200_train_item.swrec:
// one cudaStreamCreate, every kernel on the legacy stream).
std::atomic<bool> BlockingWorkSeen{false};
// A stream of higher than default priority exists: its launches are needed (priority inversion).
std::atomic<bool> HighPriorityStreams{false};
// PyTorch is loaded and a non-blocking stream exists: its current stream may be another
// than the default one, so launches onto default streams are checked against it.
std::atomic<bool> TorchSideStreams{false};
bool TorchStreamChecks = true;
std::atomic<bool> MeasureEverything{false};
// The launch's device, by its context (cuCtxGetDevice once per context and thread).
thread_local const void *LastContext = nullptr;
thread_local int LastDevice = -1;
// Launches on this thread since launch callbacks were last found needed.
thread_local unsigned IdleLaunches = 0;
unsigned IdleLaunchesBeforeOff = kIdleLaunchesBeforeOff;

// Written once: a store on every blocking-stream launch would bounce the flag's cache line
// between the threads that launch.
void noteBlockingWork() {
  if (!BlockingWorkSeen.load(std::memory_order_relaxed))
    BlockingWorkSeen.store(true, std::memory_order_relaxed);
}

struct FilterCache {
  // Stream handle -> what the driver says of it, asked once per stream and thread.
  struct StreamFacts {
    bool NonBlocking = false;
    bool HighPriority = false;  // a launch there can be held behind lower-priority work
  };
  std::unordered_map<const void *, StreamFacts> Streams;
  std::uint64_t StreamsEpoch = 0;
  // Host pointers known to be pinned. Only positive answers are kept: memory that is
  // pageable now may be registered later, pinned memory stays pinned until released.
  std::unordered_set<const void *> Pinned;
  std::uint64_t PinnedEpoch = 0;
};
// Made on a thread's first call and deleted when the thread ends, through a pthread key:
// never a thread_local object. The main thread's thread_local destructors run at exit()
// before the atexit handlers and static destructors of other libraries, and those may still
// free CUDA memory or destroy cuBLAS handles: a callback would then find a destroyed
// unordered_map. A pthread key's destructor runs only when a thread really ends, never at
// exit(). (tests/runtime/preload_test.py: libsyncwatch.so imports no __cxa_thread_atexit.)
pthread_key_t CacheKey;
pthread_once_t CacheKeyOnce = PTHREAD_ONCE_INIT;
thread_local FilterCache *ThreadCache = nullptr;  // trivially destructible: valid until the thread ends
void dropCache(void *C) {
  ThreadCache = nullptr;  // a later call on this thread (another key's destructor) makes a new one
  delete static_cast<FilterCache *>(C);
}
FilterCache &threadCache() {
  if (FilterCache *C = ThreadCache) [[likely]]
    return *C;
  pthread_once(&CacheKeyOnce, [] { pthread_key_create(&CacheKey, dropCache); });
  ThreadCache = new FilterCache;
  pthread_setspecific(CacheKey, ThreadCache);
  return *ThreadCache;
}

const FilterCache::StreamFacts &factsOf(const void *S) {
  FilterCache &Cache = threadCache();
  std::uint64_t Epoch = StreamEpoch.load(std::memory_order_acquire);
  if (Cache.StreamsEpoch != Epoch) {
    Cache.Streams.clear();
    Cache.StreamsEpoch = Epoch;
  }
  auto It = Cache.Streams.find(S);
  if (It == Cache.Streams.end()) {
    FilterCache::StreamFacts F;
    unsigned Flags = 0;
    int Priority = 0;
    F.NonBlocking =
        Driver.StreamGetFlags && Driver.StreamGetFlags(S, &Flags) == 0 && (Flags & kNonBlockingStreamFlag);
    F.HighPriority = Driver.StreamGetPriority && Driver.StreamGetPriority(S, &Priority) == 0 && Priority < 0;
    It = Cache.Streams.emplace(S, F).first;
  }
  return It->second;
}

enum class StreamClass { Legacy, Blocking, NonBlocking, HighPriority, Unknown, Captured };

// A stream being captured into a graph (cudaStreamBeginCapture .. EndCapture) runs nothing
// now: its launches and copies become graph nodes. syncwatch must not query it either: on
// the H200 a global-mode capture (olcf/cuda-training-series hw13) failed only under
// syncwatch, at the first launch into it ("operation failed due to a previous error during
// capture"), whose entry callback asked the driver for that stream's flags.
bool capturing(const void *S) {
  int Status = 0;
  return Driver.StreamIsCapturing && Driver.StreamIsCapturing(S, &Status) == 0 && Status != 0;
}
bool knownStream(const void *S) {
  FilterCache &Cache = threadCache();
  return Cache.StreamsEpoch == StreamEpoch.load(std::memory_order_acquire) && Cache.Streams.count(S);
}

// PerThreadApi: a _ptsz entry point, where the handle 0 means the calling thread's
// per-thread default stream (a --default-stream per-thread build), not the legacy one.
StreamClass classify(const void *S, bool PerThreadApi) {
  auto Handle = reinterpret_cast<std::uintptr_t>(S);
  if (Handle == 1 || (Handle == 0 && !PerThreadApi))  // cudaStreamLegacy, the NULL stream
    return StreamClass::Legacy;
  if (Handle <= 2)  // cudaStreamPerThread (0 from a _ptsz entry point): blocking towards the legacy stream
    return capturing(reinterpret_cast<const void *>(std::uintptr_t{2})) ? StreamClass::Captured : StreamClass::Blocking;
  if (!Driver.StreamGetFlags)
    return capturing(S) ? StreamClass::Captured : StreamClass::Unknown;
  // A stream first seen while captured is not asked its flags (it is asked later, once it
  // runs work again); one known non-blocking costs no driver call.
  if (!knownStream(S) && capturing(S))
    return StreamClass::Captured;
  const FilterCache::StreamFacts &F = factsOf(S);
  if (F.NonBlocking && !F.HighPriority)
    return StreamClass::NonBlocking;
  // What would be recorded, and turn kernel tracing on (cuptiActivityEnable), is not while
  // the stream is captured.
  if (capturing(S))
    return StreamClass::Captured;
  return F.NonBlocking ? StreamClass::HighPriority : StreamClass::Blocking;
}

bool pinned(const void *P) {
  if (!Driver.PointerGetAttribute || !P)
    return false;
  FilterCache &Cache = threadCache();
  std::uint64_t Epoch = HostMemoryEpoch.load(std::memory_order_acquire);
  if (Cache.PinnedEpoch != Epoch || Cache.Pinned.size() > 4096) {
    Cache.Pinned.clear();
    Cache.PinnedEpoch = Epoch;
  }
  if (Cache.Pinned.count(P))
    return true;
  unsigned Type = 0;
  bool Pinned = Driver.PointerGetAttribute(&Type, kPointerAttributeMemoryType, reinterpret_cast<unsigned long long>(P)) ==
                    0 &&
                Type == kMemoryTypeHost;
  if (Pinned)
    Cache.Pinned.insert(P);
  return Pinned;
}

int deviceOf(const void *Context) {
  if (Context != LastContext || LastDevice < 0) {
    int Device = -1;
    if (!Driver.CtxGetDevice || Driver.CtxGetDevice(&Device) != 0)
      return -1;
    LastContext = Context;
    LastDevice = Device;
  }
  return LastDevice;
}

// A launch onto a default stream (legacy or per-thread) while PyTorch's current stream is
// another: recorded with it, and kernels traced from here (what it was unordered with).
bool offTorchStream(const ApiCallback &Call, bool PerThread, EntryDecision &D) {
  if (!TorchSideStreams.load(std::memory_order_relaxed))
    return false;
  const void *Current = nullptr;
  if (!launchOffTorchStream(PerThread, deviceOf(Call.Context), &Current))
    return false;
  D = {true, true};
  D.OffTorchStream = true;
  D.CurrentStream = Current;
  return true;
}

EntryDecision launchDecision(const ApiCallback &Call) {
  if (!Call.Args.StreamKnown)
    return {true, true};
  const void *S = Call.Args.Stream;
  // A launch that cannot matter counts towards turning launch callbacks off again.
  auto Idle = [](bool Judged) {
    EntryDecision D{false, false};
    D.Judged = Judged;
    if (++IdleLaunches >= IdleLaunchesBeforeOff) {
      IdleLaunches = 0;
      D.DisableLaunches = !BlockingWorkSeen.load(std::memory_order_relaxed) &&
                          !HighPriorityStreams.load(std::memory_order_relaxed) &&
                          !TorchSideStreams.load(std::memory_order_relaxed);
    }
    return D;
  };
  switch (classify(S, Call.Args.PerThreadApi)) {
  case StreamClass::NonBlocking:
  case StreamClass::Captured:  // a graph node now: it runs when the graph is launched
    return Idle(true);
  case StreamClass::Legacy: {
    EntryDecision D;
    if (offTorchStream(Call, false, D))
      return D;
    if (!BlockingWorkSeen.load(std::memory_order_relaxed))
      return Idle(false);  // nothing it could serialize with yet, but its kernel is untraced
    return {true, true};
  }
  case StreamClass::Blocking: {
    noteBlockingWork();
    EntryDecision D;
    // (a default handle here is the per-thread stream: classify took the legacy one)
    if (reinterpret_cast<std::uintptr_t>(S) <= 2 && offTorchStream(Call, true, D))
      return D;
    return {true, true};
  }
  case StreamClass::HighPriority:
  case StreamClass::Unknown:
    return {true, true};
  }
  return {true, true};
}

// The flags and priority of a stream being created (lower is more urgent, 0 the default).
struct CreatedStream {
  unsigned Flags = 0;
  int Priority = 0;
  bool blocking() const { return !(Flags & kNonBlockingStreamFlag); }
};

// A stream of higher than default priority is created before the bulk work it will wait
// behind is issued, so kernels are traced from its creation (the seed's priority puzzle).
// PyTorch creates its high-priority pool streams as soon as any side stream is asked for:
// such programs pay for kernel tracing (bench/train_loop.py side measures it).
EntryDecision streamCreationDecision(const CallArgs &Args) {
  StreamEpoch.fetch_add(1, std::memory_order_acq_rel);
  CreatedStream S{Args.StreamFlags, Args.StreamPriority};
  if (S.Priority < 0)
    HighPriorityStreams.store(true, std::memory_order_relaxed);
  IdleLaunches = 0;
  // PyTorch creates its pool streams (and a user their ExternalStream) non-blocking: once one
  // exists, PyTorch's current stream may be another than the default one.
  bool Torch = TorchStreamChecks && !S.blocking() && !TorchSideStreams.load(std::memory_order_relaxed) &&
               bindTorchStreams();
  if (Torch)
    TorchSideStreams.store(true, std::memory_order_relaxed);
  return {true, S.Priority < 0, S.blocking() || S.Priority < 0 || Torch};
}

bool copyCannotMatter(const CallArgs &P) {
  if (!P.AsyncCopy)
    return false;
  // Priorities do not matter to copies: any non-blocking stream will do.
  StreamClass C = classify(P.Stream, P.PerThreadApi);
  if (C == StreamClass::Captured)
    return true;  // a graph node now, and no pointer query while the stream is captured
  if (C == StreamClass::Blocking)
    noteBlockingWork();
  if (C != StreamClass::NonBlocking && C != StreamClass::HighPriority)
    return false;
  if (P.CopyKind == kCopyHostToDevice)
    return pinned(P.Src);
  if (P.CopyKind == kCopyDeviceToHost)
    return pinned(P.Dst);
  return false;  // cudaMemcpyDefault and the rest: judged by their activity record
}

} // namespace

CallbackInfo callbackInfoOf(const ApiInfo &Api) {
  CallbackInfo I;
  I.Name = Api.Name;
  I.Launch = Api.Family == ApiFamily::Launch;
  I.ReleasesHostMemory = Api.Family == ApiFamily::HostFree || Api.Family == ApiFamily::HostUnregister;
  I.CreatesStream = Api.Family == ApiFamily::StreamCreate;
  // cuda_api.def's columns, as the analyzer and the Engine read them.
  I.CanWait = mayWait(Api) && !I.Launch;
  I.IssuesWork = Api.Issues != IssuedWork::None;
  return I;
}

void bindDriver(void *Handle) {
  void *H = Handle ? Handle : RTLD_DEFAULT;
  DriverQueries Q;
  Q.StreamGetFlags = reinterpret_cast<decltype(Q.StreamGetFlags)>(dlsym(H, "cuStreamGetFlags"));
  Q.StreamGetPriority = reinterpret_cast<decltype(Q.StreamGetPriority)>(dlsym(H, "cuStreamGetPriority"));
  Q.PointerGetAttribute = reinterpret_cast<decltype(Q.PointerGetAttribute)>(dlsym(H, "cuPointerGetAttribute"));
  Q.CtxGetDevice = reinterpret_cast<decltype(Q.CtxGetDevice)>(dlsym(H, "cuCtxGetDevice"));
  Q.StreamIsCapturing = reinterpret_cast<decltype(Q.StreamIsCapturing)>(dlsym(H, "cuStreamIsCapturing"));
  bindDriverQueries(Q);
}

void bindDriverQueries(const DriverQueries &Queries) { Driver = Queries; }

EntryDecision decideAtEntry(const ApiCallback &Call, const CallbackInfo &Info) {
  if (Info.ReleasesHostMemory)
    HostMemoryEpoch.fetch_add(1, std::memory_order_acq_rel);
  if (!Call.Args.HasParams)
    return {true, Info.Launch};
  if (Info.CreatesStream)
    return streamCreationDecision(Call.Args);
  if (Info.Launch) {
    EntryDecision D = launchDecision(Call);
    if (!D.Record && MeasureEverything.load(std::memory_order_relaxed)) [[unlikely]]
      D = {true, true};
    return D;
  }
  if (copyCannotMatter(Call.Args) &&
      !MeasureEverything.load(std::memory_order_relaxed)) {
    EntryDecision D{false, false};
    D.Judged = true;  // pinned memory on a non-blocking stream: truly asynchronous
    return D;
  }
  // Any other call that sent work to a blocking stream (an async copy, a memset) makes
  // launches matter.
  return {true, false, BlockingWorkSeen.load(std::memory_order_relaxed)};
}

void setTorchStreamChecks(bool On) { TorchStreamChecks = On; }

void setIdleLaunchesBeforeOff(unsigned Launches) { IdleLaunchesBeforeOff = Launches ? Launches : 1; }

void noteNewLaunchSite() { IdleLaunches = 0; }

void setMeasureAll(bool On) { MeasureEverything.store(On, std::memory_order_relaxed); }

void resetCallFilter() {
  BlockingWorkSeen.store(false);
  HighPriorityStreams.store(false);
  TorchSideStreams.store(false);
  MeasureEverything.store(false);
  LastContext = nullptr;
  LastDevice = -1;
  IdleLaunches = 0;
  HostMemoryEpoch.fetch_add(1);
  StreamEpoch.fetch_add(1);
}

} // namespace syncwatch::runtime
