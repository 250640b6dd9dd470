// CUPTI's subscription entry points, exported by libsyncwatch.so so that a profiler that
// subscribes after syncwatch (torch.profiler's Kineto) shares syncwatch's subscription
// instead of being refused (CuptiSharing.h says how and why). Under LD_PRELOAD these
// definitions come before libcupti's for every library of the process. Built into the
// preloaded library only: syncwatch's own code calls CUPTI through realCupti() or
// CuptiSharing, never through these names.
#include "CuptiSharing.h"
#include "GuestClock.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace {

using syncwatch::runtime::cuptiSharing;
using syncwatch::runtime::realCupti;

// The library a call came from ("libtorch_cuda.so"), to name the guest in the report.
const char *callerName(const void *Return) {
  Dl_info Info;
  if (!Return || !::dladdr(Return, &Info) || !Info.dli_fname)
    return "another CUPTI tool";
  const char *Slash = std::strrchr(Info.dli_fname, '/');
  return Slash ? Slash + 1 : Info.dli_fname;
}

std::uint64_t cuptiTime() {
  static const auto Get = reinterpret_cast<CUptiResult(CUPTIAPI *)(uint64_t *)>(::dlsym(RTLD_NEXT, "cuptiGetTimestamp"));
  std::uint64_t T = 0;
  if (Get)
    Get(&T);
  return T;
}

// SYNCWATCH_DEBUG_CUPTI=1: each call another tool makes to these entry points, with its
// result, on stderr - to see what a profiler asked of CUPTI when its trace comes out wrong.
CUptiResult traced(const char *Name, std::uint64_t Arg, CUptiResult R) {
  static const bool On = [] {
    const char *E = std::getenv("SYNCWATCH_DEBUG_CUPTI");
    return E && *E && std::strcmp(E, "0") != 0;
  }();
  if (On) {
    char Line[160];
    int N = std::snprintf(Line, sizeof Line, "syncwatch: [cupti] %s(%llu) -> %d\n", Name,
                          static_cast<unsigned long long>(Arg), static_cast<int>(R));
    if (N > 0)
      (void)!::write(2, Line, static_cast<std::size_t>(N) < sizeof Line ? N : sizeof Line - 1);
  }
  return R;
}

} // namespace

#define SW_EXPORT extern "C" __attribute__((visibility("default")))

SW_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc Callback,
                                              void *Userdata) {
  return traced("cuptiSubscribe", 0, cuptiSharing().guestSubscribe(Subscriber, Callback, Userdata, nullptr, false,
                                       callerName(__builtin_return_address(0)), cuptiTime()));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc Callback,
                                                 void *Userdata, CUpti_SubscriberParams *Params) {
  return traced("cuptiSubscribe_v2", 0, cuptiSharing().guestSubscribe(Subscriber, Callback, Userdata, Params, true,
                                       callerName(__builtin_return_address(0)), cuptiTime()));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle Subscriber) {
  return traced("cuptiUnsubscribe", 0, cuptiSharing().guestUnsubscribe(Subscriber));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t Enable, CUpti_SubscriberHandle Subscriber,
                                                   CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  return traced(Enable ? "cuptiEnableCallback(on)" : "cuptiEnableCallback(off)", Domain * 10000ull + Id,
                cuptiSharing().guestEnableCallback(Enable, Subscriber, Domain, Id));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t Enable, CUpti_SubscriberHandle Subscriber,
                                                 CUpti_CallbackDomain Domain) {
  return traced(Enable ? "cuptiEnableDomain(on)" : "cuptiEnableDomain(off)", Domain,
                cuptiSharing().guestEnableDomain(Enable, Subscriber, Domain));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t Enable, CUpti_SubscriberHandle Subscriber) {
  return traced("cuptiEnableAllDomains", Enable, cuptiSharing().guestEnableAllDomains(Enable, Subscriber));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *Enable, CUpti_SubscriberHandle Subscriber,
                                                     CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  return cuptiSharing().guestCallbackState(Enable, Subscriber, Domain, Id);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc Request,
                                                              CUpti_BuffersCallbackCompleteFunc Complete) {
  return traced("cuptiActivityRegisterCallbacks", 0,
                cuptiSharing().guestRegisterBuffers(Request, Complete, callerName(__builtin_return_address(0)), cuptiTime()));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind Kind) {
  return traced("cuptiActivityEnable", Kind, cuptiSharing().guestEnableKind(true, Kind));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind Kind) {
  return traced("cuptiActivityDisable", Kind, cuptiSharing().guestEnableKind(false, Kind));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t Flag) {
  return traced("cuptiActivityFlushAll", Flag, cuptiSharing().guestFlush(Flag));
}

SW_EXPORT CUptiResult CUPTIAPI cuptiFinalize() { return traced("cuptiFinalize", 0, cuptiSharing().guestFinalize()); }

// A profiler's own clock for CUPTI's times (Kineto's, when torch.profiler starts tracing):
// CUPTI takes it, so that the profiler's trace lines up with its CPU events; syncwatch reads
// the two clocks together first and keeps its own (GuestClock.h).
SW_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc Source) {
  static const auto Real = reinterpret_cast<CUptiResult(CUPTIAPI *)(CUpti_TimestampCallbackFunc)>(
      ::dlsym(RTLD_NEXT, "cuptiActivityRegisterTimestampCallback"));
  if (!Real)
    return traced("cuptiActivityRegisterTimestampCallback", 0, CUPTI_ERROR_NOT_INITIALIZED);
  if (!Source)
    return traced("cuptiActivityRegisterTimestampCallback", 0, Real(Source));
  // The guest's reading bracketed by two of syncwatch's, the tightest of a few tries, its
  // first call made once before (a source's first call may set itself up: a late reading
  // would put every later time early by that much). The offset's error is under half the
  // bracket (tens of ns).
  (void)Source();
  std::uint64_t Own = 0, Guest = 0, Bracket = ~0ull;
  for (int Try = 0; Try < 5; ++Try) {
    std::uint64_t Before = syncwatch::runtime::guestClock().ownNow(cuptiTime());
    std::uint64_t G = Source();
    std::uint64_t After = syncwatch::runtime::guestClock().ownNow(cuptiTime());
    if (After >= Before && After - Before < Bracket) {
      Bracket = After - Before;
      Own = Before + Bracket / 2;
      Guest = G;
    }
  }
  if (Bracket == ~0ull)  // (a clock that went back between the reads: one plain reading)
    Own = syncwatch::runtime::guestClock().ownNow(cuptiTime()), Guest = Source();
  CUptiResult R = Real(Source);
  if (R == CUPTI_SUCCESS)
    syncwatch::runtime::guestClock().switched(Own, Guest);
  return traced("cuptiActivityRegisterTimestampCallback", 0, R);
}
