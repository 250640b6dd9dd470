// syncwatch's real capture handlers (interposer/recorder/ApiHandler.cpp), its rings, site
// keys and recorder, driven by the fake runtime (fake_cudart.cpp) instead of CUPTI. The
// library's name starts with libsyncwatch, as libsyncwatch.so's does: its frames are
// syncwatch's own to the frame classification.
#include "../../interposer/cupti/CallDecoding.h"
#include "../../interposer/recorder/ApiHandler.h"
#include "../../interposer/recorder/HostClock.h"
#include "../../interposer/recorder/Recorder.h"
#include "../../interposer/sites/PythonStacks.h"
#include "../../interposer/sites/SiteKeys.h"

#include "syncwatch/catalogue.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {
Recorder *TheRecorder = nullptr;
Recorder &recorder() { return *TheRecorder; }
void nothing() {}

std::uint64_t realtimeNs() {
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return static_cast<std::uint64_t>(T.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(T.tv_nsec);
}

// What cupti/Subscriber.cpp derives from the catalogue for each callback id.
CallbackInfo infoFor(const char *Name) {
  const ApiInfo *Api = findApi(Name);
  return Api ? callbackInfoOf(*Api) : CallbackInfo();
}
CallbackInfo Launch, Copy, Record, Sync;

const CallbackInfo &infoOf(CUpti_CallbackId Id) {
  switch (Id) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: return Launch;
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: return Copy;
  case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020: return Record;
  default: return Sync;
  }
}

// The fake driver: every stream is a blocking one (so every call is recorded: the costliest
// case), no host memory is pinned.
// (0x3000, the side stream of cost_app.cpp, is non-blocking: its launches are filtered.)
int streamFlags(const void *S, unsigned *Flags) {
  *Flags = reinterpret_cast<std::uintptr_t>(S) == 0x3000 ? 1u : 0u;
  return 0;
}
int streamPriority(const void *, int *P) {
  *P = 0;
  return 0;
}
int pointerAttribute(void *, int, unsigned long long) { return 1; }
// No stream is being captured (asked before a blocking stream's call is recorded).
int streamIsCapturing(const void *, int *Status) {
  *Status = 0;
  return 0;
}

// As cupti/Subscriber.cpp's callback does: decoded into an ApiCallback, then handled.
void onEnter(CUpti_CallbackDomain D, CUpti_CallbackId Id, const CUpti_CallbackData *Cb) {
  const CallbackInfo &Info = infoOf(Id);
  onApiEnter(decodeEntry(D, Id, Cb, Info.Launch, Info.CreatesStream), Info);
}
void onExit(CUpti_CallbackDomain D, CUpti_CallbackId Id, const CUpti_CallbackData *Cb) {
  onApiExit(decodeExit(D, Id, Cb), infoOf(Id));
}
} // namespace

extern "C" {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);

// Starts the clock, the recorder and the handlers; returns the two handlers to bind.
// Once for all threads, and every caller waits for it: the threads mode starts eight at once,
// and one that went ahead before the hooks were set called a null TheRecorder (a crash in
// about 1 run of 12).
__attribute__((visibility("default"))) void swcost_start(Handler *Enter, Handler *Exit) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    startHostClock(realtimeNs);
    std::string Messages;
    Config C = readConfig(Messages);
    C.Quiet = true;
    C.OutDir.clear();
    TheRecorder = new Recorder(C);
    TheRecorder->startDrainer();
    Launch = infoFor("cudaLaunchKernel");
    Copy = infoFor("cudaMemcpyAsync");
    Record = infoFor("cudaEventRecord");
    Sync = infoFor("cudaStreamSynchronize");
    DriverQueries Q;
    Q.StreamGetFlags = streamFlags;
    Q.StreamGetPriority = streamPriority;
    Q.PointerGetAttribute = pointerAttribute;
    Q.StreamIsCapturing = streamIsCapturing;
    bindDriverQueries(Q);
    HandlerHooks H;
    H.TheRecorder = recorder;
    H.EnableLaunches = H.DisableLaunches = H.TraceKernels = nothing;
    H.ThresholdNs = C.ThresholdNs;
    setHandlerHooks(H);
  });
  *Enter = onEnter;
  *Exit = onExit;
}

// This thread's part timings from now on (null: off).
__attribute__((visibility("default"))) void swcost_measure_parts(HandlerParts *P) { measureHandlerParts(P); }

__attribute__((visibility("default"))) double swcost_ns_per_tick() {
  std::uint64_t T = ticksFor(1'000'000'000ull);
  return T ? 1e9 / static_cast<double>(T) : 1.0;
}

// Two clock reads, as the fast path makes them, N times: ns per pair.
__attribute__((visibility("default"))) double swcost_clock_pair_ns(int N) {
  std::uint64_t T0 = hostTicks(), Sum = 0;
  for (int I = 0; I < N; ++I) {
    std::uint64_t A = hostTicks();
    std::uint64_t B = hostTicks();
    Sum += B - A;
    asm volatile("" ::"r"(Sum));
  }
  std::uint64_t T1 = hostTicks();
  return static_cast<double>(T1 - T0) * swcost_ns_per_tick() / N;
}

// The Python half of a site key, N times from the calling thread: ns per read.
__attribute__((visibility("default"))) double swcost_python_read_ns(int N, int *Found) {
  PySiteKey K;
  *Found = currentPythonSite(K) == PySite::Found;
  std::uint64_t T0 = hostTicks();
  for (int I = 0; I < N; ++I) {
    currentPythonSite(K);
    asm volatile("" ::"r"(K.Offset));
  }
  return static_cast<double>(hostTicks() - T0) * swcost_ns_per_tick() / N;
}

// A full unwind with Python frames, as the slow path takes it (for comparison): ns each.
__attribute__((visibility("default"))) double swcost_full_stack_ns(int N) {
  RawStack S;
  std::uint64_t T0 = hostTicks();
  for (int I = 0; I < N; ++I)
    captureStack(S);
  return static_cast<double>(hostTicks() - T0) * swcost_ns_per_tick() / N;
}

// GPU records as CUPTI hands them over (buffers of 8192 memcpy records, each with its
// call), Records in all: what a copy-heavy run feeds the engine (peak RSS, rss mode).
__attribute__((visibility("default"))) void swcost_feed_records(long Records) {
  std::uint32_t Corr = 1u << 30;
  std::uint64_t T = 1'000'000'000;
  std::vector<GpuWork> Batch;
  for (long Done = 0; Done < Records;) {
    Batch.clear();
    for (int I = 0; I < 8192 && Done < Records; ++I, ++Done) {
      GpuWork W;
      W.Kind = GpuKind::Memcpy;
      W.Correlation = ++Corr;
      W.Stream = 13 + (Done & 3);
      W.Start = T;
      W.End = T + 500;
      W.Bytes = 64;
      W.CopyKind = 1;
      W.Src = MemoryKind::Pinned;
      W.Dst = MemoryKind::Device;
      W.Async = true;
      T += 2000;
      Batch.push_back(W);
    }
    TheRecorder->addWork(Batch);
  }
}

// What the run saw: calls recorded (after a drain), sites, keys, and the engine's findings.
__attribute__((visibility("default"))) void swcost_summary(char *Buf, int Len) {
  TheRecorder->drainCalls();
  SiteKeyStats S = siteKeyStats();
  std::snprintf(Buf, static_cast<std::size_t>(Len),
                "keys=%u return_addresses=%u learned=%u unkeyable=%u unstable_frames=%u python=%s", S.Keys,
                S.ReturnAddresses, S.Learned, S.Unkeyable, S.UnstableFrames,
                preparePythonStacks() ? "on" : (pythonStacksUnavailable().empty() ? "none" : pythonStacksUnavailable().c_str()));
}
}
