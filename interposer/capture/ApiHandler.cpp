#include "ApiHandler.h"

#include "../runtime/CallRing.h"
#include "../runtime/Recorder.h"
#include "HostClock.h"
#include "SelfStats.h"
#include "SiteKeys.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace syncwatch::runtime {
namespace {

HandlerHooks Hooks;
std::uint64_t SlowTicks = UINT64_MAX;

struct ThreadState {
  int Depth = 0;                // a driver call inside a runtime call is not a second call
  bool Skip = false;            // this call cannot matter: not recorded at all
  bool CreatedContext = false;  // CUPTI created a context inside the current call
  bool OffTorchStream = false;  // EntryDecision::OffTorchStream, CurrentStream as CUPTI's id
  std::uint32_t CurrentStream = 0;
  std::uint64_t Enter = 0;
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
__attribute__((noinline)) std::uint32_t siteOfCall(std::uint32_t Callback, Recorder &Rec) {
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
  std::uint32_t Site = Rec.internSite(*SlowStack);
  if (Learned)
    publishSiteKey(Learned, Site);
  if (Parts) {
    Parts->SlowPath += hostTicks() - T0;
    ++Parts->SlowCalls;
  }
  return Site;
}

} // namespace

void setHandlerHooks(const HandlerHooks &H) {
  Hooks = H;
  SlowTicks = ticksFor(H.ThresholdNs);
}

void measureHandlerParts(HandlerParts *PerThread) { Parts = PerThread; }

void noteContextCreated() {
  if (Thread.Depth > 0)
    Thread.CreatedContext = true;
}

void onApiEnter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb,
                const CallbackInfo &Info) {
  if (Thread.Depth++ > 0)
    return;
  if (!Parts && selfStatsOn()) [[unlikely]]
    Parts = threadHandlerParts();
  std::uint64_t T0 = Parts ? hostTicks() : 0;
  EntryDecision D = decideAtEntry(Domain, Id, Cb, Info);
  if (Parts)
    Parts->Filter += hostTicks() - T0;
  if (D.EnableLaunches)
    Hooks.EnableLaunches();
  else if (D.DisableLaunches)
    Hooks.DisableLaunches();
  if (Hooks.AutoKernels && D.TraceKernels)
    Hooks.TraceKernels();
  Thread.Skip = !D.Record;
  Thread.CreatedContext = false;
  Thread.OffTorchStream = D.OffTorchStream;
  if (D.OffTorchStream) [[unlikely]]
    Thread.CurrentStream = Hooks.StreamIdOf ? Hooks.StreamIdOf(Cb->context, D.CurrentStream) : UINT32_MAX;
  if (!Thread.Skip)
    Thread.Enter = hostTicks();
}

void onApiExit(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb,
               const CallbackInfo &Info) {
  if (--Thread.Depth > 0 || Thread.Skip)
    return;
  std::uint64_t Exit = hostTicks();
  Recorder &Rec = Hooks.TheRecorder();
  CallRecord R;
  R.Enter = Thread.Enter;
  R.Exit = Exit;
  R.Thread = threadId();
  R.Api = !Info.Name.empty() ? Info.Name : internApiName(Cb->functionName);
  R.Correlation = Cb->correlationId;
  R.CreatedContext = Thread.CreatedContext;
  R.OffTorchStream = Thread.OffTorchStream;
  R.CurrentStream = Thread.CurrentStream;
  R.Site = siteOfCall(static_cast<std::uint32_t>(Domain) << 16 | Id, Rec);
  std::uint64_t T0 = Parts ? hostTicks() : 0;
  CallRing *Ring = threadRing();
  if (!Ring || !Ring->push(R)) {
    Rec.drainCalls();
    if (!Ring || !Ring->push(R))
      Rec.addCallNow(R);
  } else if (Ring->size() == CallRing::Capacity / 2) {
    Rec.wakeDrainer();  // once per half ring: the drainer empties it long before it is full
  }
  if (Parts) {
    Parts->Record += hostTicks() - T0;
    ++Parts->Calls;
  }
  // A slow cudaMallocHost or first cudaStreamCreate is busy on the host, not waiting for
  // kernels: only calls that can wait turn kernel tracing on.
  if (Hooks.AutoKernels && Info.CanWait && Exit - Thread.Enter >= SlowTicks)
    Hooks.TraceKernels();
}

} // namespace syncwatch::runtime
