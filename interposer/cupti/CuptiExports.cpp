// CUPTI's subscription entry points, exported by libsyncwatch.so so that a profiler that
// subscribes after syncwatch (torch.profiler's Kineto) shares syncwatch's subscription
// instead of being refused (CuptiSharing.h says how and why). Under LD_PRELOAD these
// definitions come before libcupti's for every library of the process. Built into the
// preloaded library only: syncwatch's own code calls CUPTI through realCupti() or
// CuptiSharing, never through these names.
#include "CuptiSharing.h"

#include <dlfcn.h>

#include <cstring>

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

} // namespace

#define SW_EXPORT extern "C" __attribute__((visibility("default")))

SW_EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc Callback,
                                              void *Userdata) {
  return cuptiSharing().guestSubscribe(Subscriber, Callback, Userdata, nullptr, false,
                                       callerName(__builtin_return_address(0)), cuptiTime());
}

SW_EXPORT CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *Subscriber, CUpti_CallbackFunc Callback,
                                                 void *Userdata, CUpti_SubscriberParams *Params) {
  return cuptiSharing().guestSubscribe(Subscriber, Callback, Userdata, Params, true,
                                       callerName(__builtin_return_address(0)), cuptiTime());
}

SW_EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle Subscriber) {
  return cuptiSharing().guestUnsubscribe(Subscriber);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t Enable, CUpti_SubscriberHandle Subscriber,
                                                   CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  return cuptiSharing().guestEnableCallback(Enable, Subscriber, Domain, Id);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t Enable, CUpti_SubscriberHandle Subscriber,
                                                 CUpti_CallbackDomain Domain) {
  return cuptiSharing().guestEnableDomain(Enable, Subscriber, Domain);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t Enable, CUpti_SubscriberHandle Subscriber) {
  return cuptiSharing().guestEnableAllDomains(Enable, Subscriber);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *Enable, CUpti_SubscriberHandle Subscriber,
                                                     CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  return cuptiSharing().guestCallbackState(Enable, Subscriber, Domain, Id);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc Request,
                                                              CUpti_BuffersCallbackCompleteFunc Complete) {
  return cuptiSharing().guestRegisterBuffers(Request, Complete, callerName(__builtin_return_address(0)), cuptiTime());
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind Kind) {
  return cuptiSharing().guestEnableKind(true, Kind);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind Kind) {
  return cuptiSharing().guestEnableKind(false, Kind);
}

SW_EXPORT CUptiResult CUPTIAPI cuptiFinalize() { return cuptiSharing().guestFinalize(); }
