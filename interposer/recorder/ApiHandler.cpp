#include "ApiHandler.h"

#include "CallRing.h"
#include "CaptureTracker.h"
#include "HostClock.h"
#include "Recorder.h"
#include "SelfStats.h"

#include "../events/ApiNames.h"
#include "../events/CaptureNote.h"
#include "../sites/SiteKeys.h"

#include <atomic>
#include <sys/syscall.h>
#include <unistd.h>

namespace syncwatch::runtime {
namespace {

HandlerHooks Hooks;
std::uint64_t SlowTicks = UINT64_MAX;
// SYNCWATCH_MEASURE=all:SECONDS: the end of the window, in ticks, set at the first recorded
// call (UINT64_MAX: not yet; 0: no window).
std::atomic<std::uint64_t> MeasureEndTicks{0};

struct ThreadState {
  int Depth = 0;                // a driver call inside a runtime call is not a second call
  bool Skip = false;            // this call cannot matter: only counted at its site
  bool Judged = false;          // (Skip) decided harmless, not left untimed (EntryDecision)
  bool CreatedContext = false;  // CUPTI created a context inside the current call
  bool OffTorchStream = false;  // EntryDecision::OffTorchStream, CurrentStream as CUPTI's id
  std::uint32_t CurrentStream = 0;
  std::uint64_t Enter = 0;
  // A capture's begin or end (CallbackInfo::Capture): its stream's handle, CUPTI id and mode,
  // read at entry - before the stream is captured, when asking CUPTI of it is still safe.
  const void *CaptureHandle = nullptr;
  std::uint32_t CaptureStream = UINT32_MAX;
  std::uint8_t CaptureMode = 255;
};
thread_local ThreadState Thread;
thread_local RawStack *SlowStack = nullptr;  // the slow path's scratch (2.6 KiB), made once
thread_local HandlerParts *Parts = nullptr;

std::uint64_t threadId() {
  thread_local const std::uint64_t Tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  return Tid;
}

// The call's site id. Its frame is the base of the learned stack slots, so it is always
// called from the same place, never inlined, at the same depth under the callback.
__attribute__((noinline)) std::uint32_t siteOfCall(std::uint32_t Callback) {
  const char *Base = static_cast<const char *>(__builtin_frame_address(0));
  std::uint64_t T0 = Parts ? hostTicks() : 0;
  std::uint64_t Key = fastSiteKey(Callback, Base);
  if (std::uint32_t Site = siteOfKey(Key)) {
    if (Parts)
      Parts->Key += hostTicks() - T0;
    return Site;
  }
  // The slow path: a site's first occurrences (and a stack that cannot be keyed).
  if (!SlowStack)
    SlowStack = new RawStack;
  std::uint64_t Learned = learnSiteKey(Callback, Base, *SlowStack);
  std::uint32_t Site = Hooks.TheRecorder().internSite(*SlowStack);
  if (Learned)
    publishSiteKey(Learned, Site);
  if (Parts) {
    Parts->SlowPath += hostTicks() - T0;
    ++Parts->SlowCalls;
  }
  return Site;
}

// The call's API as the catalogue names it (static storage: CallRecord and SiteCounters keep it).
std::string_view apiOf(const ApiReturn &Call, const CallbackInfo &Info) {
  return !Info.Name.empty() ? Info.Name : internApiName(Call.FunctionName);
}

// The highest site id seen so far: site ids are dense, so a higher one is a new site.
std::atomic<std::uint32_t> NewestSite{0};

// A call the filter did not record, counted at its site (the recording's N records): what
// tells confirm that the line ran. Costs a site key, no clock read, no lock. (The site is
// keyed in onApiExit itself: siteOfCall's depth under the callback must not change.)
void countSkipped(std::uint32_t Site, const ApiReturn &Call, const CallbackInfo &Info) {
  std::string_view Api = apiOf(Call, Info);
  if (Site > NewestSite.load(std::memory_order_relaxed)) [[unlikely]] {
    NewestSite.store(Site, std::memory_order_relaxed);  // racy max: a lost update only delays
    if (Info.Launch)
      noteNewLaunchSite();  // a new launch site keeps launch callbacks on a while longer
  }
  CallRing *Ring = threadRing();
  if (!Ring || !Ring->Counted.add(Site, Api, Thread.Judged))
    Hooks.TheRecorder().countSpilled(Site, Api, Thread.Judged);
  if (Parts)
    ++Parts->Calls;
}

CaptureTracker &captures() {
  static auto *T = new CaptureTracker;  // never destroyed: calls may come after exit's destructors
  return *T;
}

// Into the thread's ring (or straight to the Recorder when the ring is full).
void pushRecord(const CallRecord &R) {
  Recorder &Rec = Hooks.TheRecorder();  // (made at the first recorded call)
  CallRing *Ring = threadRing();
  if (!Ring || !Ring->push(R)) {
    Rec.drainCalls();
    if (!Ring || !Ring->push(R))
      Rec.addCallNow(R);
  } else if (Ring->size() == CallRing::Capacity / 2) {
    Rec.wakeDrainer();  // once per half ring: the drainer empties it long before it is full
  }
}

// A call that began or ended a graph capture, or failed with a capture error: always
// recorded (a skipped one with no time of its own), with its note (CaptureTracker.h).
void followCapture(const ApiReturn &Call, const CallbackInfo &Info, std::uint32_t Site) {
  std::uint64_t Exit = hostTicks();
  CallRecord R;
  R.Enter = Thread.Skip ? Exit : Thread.Enter;
  R.Exit = Exit;
  R.Thread = threadId();
  R.Api = apiOf(Call, Info);
  R.Correlation = Call.Correlation;
  R.CreatedContext = Thread.CreatedContext;
  R.Site = Site;
  std::uint32_t Note = 0;
  bool Opened = false, Closed = false;
  if (beginsCapture(Info.Capture) && Call.Result == 0) {
    Note = captures().began(Thread.CaptureHandle, Thread.CaptureStream, static_cast<CaptureMode>(Thread.CaptureMode),
                            R.Thread, Site, Opened);
  } else if (Info.Capture == CaptureCall::End) {
    std::uint32_t Nodes = Call.Graph && Hooks.GraphNodes ? Hooks.GraphNodes(Call.Graph) : 0;
    Note = captures().ended(Thread.CaptureHandle, Call.Result, Nodes, Closed);
  } else if (isCaptureError(Call.Result)) {
    Note = captures().failed(R.Thread, R.Api, Call.Result, Site);
  }
  R.CurrentStream = Note;
  if (Hooks.CapturesOpen && (Opened || Closed))
    Hooks.CapturesOpen(Opened);
  pushRecord(R);
}

} // namespace

void setHandlerHooks(const HandlerHooks &H) {
  Hooks = H;
  SlowTicks = ticksFor(H.ThresholdNs);
  MeasureEndTicks.store(H.MeasureForNs ? UINT64_MAX : 0);
}

void measureHandlerParts(HandlerParts *PerThread) { Parts = PerThread; }

void noteContextCreated() {
  if (Thread.Depth > 0)
    Thread.CreatedContext = true;
}

void noteTorchGraphHint(bool Skipped, std::string_view Message) {
  if (!Hooks.TheRecorder)
    return;
  constexpr std::size_t kMaxReason = 4096;  // a mutation's stack trace is a few lines
  CaptureNote N;
  N.What = Skipped ? CaptureNote::Role::TorchSkip : CaptureNote::Role::TorchHint;
  N.Reason = std::string(Message.substr(0, kMaxReason));
  auto *Stack = new RawStack;  // (2.6 KiB; a hint comes once per compiled graph)
  captureStack(*Stack);
  CallRecord R;
  R.Enter = R.Exit = hostTicks();
  R.Thread = threadId();
  R.Api = internApiName("torch.compile");
  R.Site = Hooks.TheRecorder().internSite(*Stack);
  R.CurrentStream = internCaptureNote(N);
  delete Stack;
  pushRecord(R);
}

void onApiEnter(const ApiCallback &Call, const CallbackInfo &Info) {
  if (Thread.Depth++ > 0)
    return;
  if (!Parts && selfStatsOn()) [[unlikely]]
    Parts = threadHandlerParts();
  std::uint64_t T0 = Parts ? hostTicks() : 0;
  EntryDecision D = decideAtEntry(Call, Info);
  if (Parts)
    Parts->Filter += hostTicks() - T0;
  if (D.EnableLaunches)
    Hooks.EnableLaunches();
  else if (D.DisableLaunches)
    Hooks.DisableLaunches();
  if (Hooks.AutoKernels && D.TraceKernels)
    Hooks.TraceKernels();
  Thread.Skip = !D.Record;
  Thread.Judged = D.Judged;
  Thread.CreatedContext = false;
  Thread.OffTorchStream = D.OffTorchStream;
  if (D.OffTorchStream) [[unlikely]]
    Thread.CurrentStream = Hooks.StreamIdOf ? Hooks.StreamIdOf(Call.Context, D.CurrentStream) : UINT32_MAX;
  if (Info.Capture != CaptureCall::None) [[unlikely]] {
    Thread.CaptureHandle = Call.Args.Stream;
    Thread.CaptureMode = Call.Args.CaptureMode;
    Thread.CaptureStream = beginsCapture(Info.Capture) && Hooks.StreamIdOf
                               ? Hooks.StreamIdOf(Call.Context, Call.Args.Stream)
                               : UINT32_MAX;
  }
  if (!Thread.Skip)
    Thread.Enter = hostTicks();
}

void onApiExit(const ApiReturn &Call, const CallbackInfo &Info) {
  if (--Thread.Depth > 0)
    return;
  if (Info.Capture != CaptureCall::None || isCaptureError(Call.Result)) [[unlikely]] {
    followCapture(Call, Info, siteOfCall(Call.Key));
    return;
  }
  if (Thread.Skip) {
    countSkipped(siteOfCall(Call.Key), Call, Info);
    return;
  }
  std::uint64_t Exit = hostTicks();
  CallRecord R;
  R.Enter = Thread.Enter;
  R.Exit = Exit;
  R.Thread = threadId();
  R.Api = apiOf(Call, Info);
  R.Correlation = Call.Correlation;
  R.CreatedContext = Thread.CreatedContext;
  R.OffTorchStream = Thread.OffTorchStream;
  R.CurrentStream = Thread.OffTorchStream ? Thread.CurrentStream : 0;  // (0: no capture note either)
  R.Site = siteOfCall(Call.Key);
  std::uint64_t T0 = Parts ? hostTicks() : 0;
  pushRecord(R);
  if (Parts) {
    Parts->Record += hostTicks() - T0;
    ++Parts->Calls;
  }
  if (std::uint64_t End = MeasureEndTicks.load(std::memory_order_relaxed)) [[unlikely]] {
    if (End == UINT64_MAX) {
      std::uint64_t Ends = Exit + ticksFor(Hooks.MeasureForNs);
      MeasureEndTicks.compare_exchange_strong(End, Ends);
    } else if (Exit >= End) {
      setMeasureAll(false);  // the window is over: the fast path filters again
      MeasureEndTicks.store(0, std::memory_order_relaxed);
    }
  }
  // A slow cudaMallocHost or first cudaStreamCreate is busy on the host, not waiting for
  // kernels: only calls that can wait turn kernel tracing on.
  if (Hooks.AutoKernels && Info.CanWait && Exit - Thread.Enter >= SlowTicks)
    Hooks.TraceKernels();
}

} // namespace syncwatch::runtime
