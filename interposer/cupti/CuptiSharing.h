// One CUPTI subscription, shared with a profiler that comes second.
//
// CUPTI takes one subscriber per process on drivers before r610 (the H100s and H200s we
// run on have 580). Measured on an H100 (tests/gpu/coexistence.sh, torch 2.11): with
// syncwatch subscribed, torch.profiler's Kineto got CUPTI_ERROR_MULTIPLE_SUBSCRIBERS and
// its trace had 0 of the 80 kernels and 0 of the 40 memcpys it has without syncwatch; and
// Kineto keeps its subscription for the rest of the process unless TEARDOWN_CUPTI=1, so
// stepping aside for it would blind syncwatch for the rest of a job that profiled a few
// steps. So syncwatch shares: libsyncwatch.so exports CUPTI's subscription entry points
// (CuptiExports.cpp), and a second subscriber - the guest - is given a handle of its own
// on syncwatch's one subscription:
//   - callbacks: each (domain, id) is on in CUPTI while syncwatch or the guest wants it;
//     syncwatch's callback hands the guest the ids it enabled (its own callback and
//     userdata, the same data), and skips its own work for ids only the guest wants;
//   - activity: each kind is on while either wants it; syncwatch's buffers stay the ones
//     CUPTI fills, and each completed buffer's records of the guest's kinds are copied, in
//     order, into buffers the guest's own request callback gives, then handed to its
//     completion callback (a flush the guest asks for does the same at once); syncwatch
//     reads only its own kinds. A kind the guest turns off is still copied until its next
//     flush: Kineto's stop disables its kinds first and flushes after, and CUPTI delivers
//     the records made before the disable (copying only the kinds on at the flush gave it
//     none). The guest always holds one buffer while its kinds are on,
//     as CUPTI asks for one as soon as activity is on: Kineto's stop flushes CUPTI only
//     when it has a buffer out, and without one it read 0 of 80 kernels (H100, torch 2.11);
//   - the guest's unsubscribe and cuptiFinalize take back what it enabled, never
//     syncwatch's subscription.
// Before syncwatch subscribes (and in a process where it could not), every call goes to
// CUPTI unchanged; the one that took CUPTI is remembered, to be named in "not active".
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace syncwatch::runtime {

// libcupti's own entry points: the ones syncwatch shares, and what sharing needs.
struct RealCupti {
  CUptiResult(CUPTIAPI *Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = nullptr;
  CUptiResult(CUPTIAPI *SubscribeV2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
                                     CUpti_SubscriberParams *) = nullptr;
  CUptiResult(CUPTIAPI *Unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult(CUPTIAPI *EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult(CUPTIAPI *EnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult(CUPTIAPI *EnableAllDomains)(uint32_t, CUpti_SubscriberHandle) = nullptr;
  CUptiResult(CUPTIAPI *GetCallbackState)(uint32_t *, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult(CUPTIAPI *RegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult(CUPTIAPI *ActivityEnable)(CUpti_ActivityKind) = nullptr;
  CUptiResult(CUPTIAPI *ActivityDisable)(CUpti_ActivityKind) = nullptr;
  CUptiResult(CUPTIAPI *FlushAll)(uint32_t) = nullptr;
  CUptiResult(CUPTIAPI *Finalize)() = nullptr;
  CUptiResult(CUPTIAPI *GetNextRecord)(uint8_t *, size_t, CUpti_Activity **) = nullptr;
  // CUPTI 13.2 and later scope activity to a subscriber (cuptiActivityRegisterCallbacks_v2
  // and others take its handle) and, on r610 drivers, take several subscribers themselves.
  // A guest there may hand CUPTI the handle it got: sharing passes such a CUPTI's subscribe
  // through, to be taken or refused by CUPTI itself (not seen on a GPU yet: CUDA 13.0 here).
  bool SubscriberScoped = false;
};

// libcupti's, looked up past libsyncwatch.so (dlsym RTLD_NEXT), once.
const RealCupti &realCupti();

class CuptiSharing {
public:
  explicit CuptiSharing(const RealCupti &Real) : Real(Real) {}

  // SYNCWATCH_SHARE_CUPTI=0: no sharing - another subscriber's calls go to CUPTI as they
  // are (it is refused while syncwatch is subscribed, as before sharing).
  void disable() { Disabled = true; }

  // --- syncwatch's side -----------------------------------------------------------
  // Subscribes syncwatch (CUPTI's own subscribe); from then on, calls of others are shared.
  CUptiResult subscribeOurs(CUpti_SubscriberHandle *Handle, CUpti_CallbackFunc Callback, std::uint64_t Now = 0);
  void enableOurs(bool On, CUpti_CallbackDomain Domain, CUpti_CallbackId Id);
  bool enableOurDomain(bool On, CUpti_CallbackDomain Domain);  // false: no id could be set
  void enableOurKind(bool On, CUpti_ActivityKind Kind);
  void registerOurBuffers(CUpti_BuffersCallbackRequestFunc Request, CUpti_BuffersCallbackCompleteFunc Complete);
  // Switches syncwatch's callbacks and activity kinds off in CUPTI (a guest's stay on), and
  // back on. While off, what syncwatch enables or disables is kept, and applied when it is
  // switched on again (kernel tracing turned on meanwhile is on after). For benchmarks that
  // time the same steps with and without syncwatch in one process (syncwatch_set_active):
  // between processes the same PyTorch loop moved by 20-50% on the GPU machines. Returns
  // false when it already was so.
  bool setOursActive(bool Active);

  // The fast path's question: is anyone else here? (one relaxed load)
  bool guestActive() const { return GuestHere.load(std::memory_order_relaxed); }
  bool oursOn(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) const { return bit(Ours, Domain, Id); }
  bool ourKind(std::uint32_t Kind) const { return Kind < kKinds && OurKinds[Kind].load(std::memory_order_relaxed); }
  // Calls the guest's callback if it enabled this id.
  void toGuest(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) const;
  // A completed buffer of syncwatch's: the guest's records copied into its own buffers.
  void forwardRecords(CUcontext Context, uint32_t StreamId, std::uint8_t *Buffer, std::size_t Valid);

  // Who shared CUPTI and since when, for the report ("" if nobody); who took CUPTI
  // before syncwatch could ("" if nobody known).
  std::string guestSummary() const;
  std::string holder() const;

  // --- the other subscriber's side (the exported entry points) ----------------------
  // Who: the calling library, to name it; Now: CUPTI's time of the call. Passed through
  // to CUPTI where CUPTI scopes activity to subscribers (RealCupti::SubscriberScoped).
  CUptiResult guestSubscribe(CUpti_SubscriberHandle *Handle, CUpti_CallbackFunc Callback, void *Userdata,
                             CUpti_SubscriberParams *Params, bool V2, const char *Who, std::uint64_t Now);
  CUptiResult guestUnsubscribe(CUpti_SubscriberHandle Handle);
  CUptiResult guestEnableCallback(uint32_t On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain,
                                  CUpti_CallbackId Id);
  CUptiResult guestEnableDomain(uint32_t On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain);
  CUptiResult guestEnableAllDomains(uint32_t On, CUpti_SubscriberHandle Handle);
  CUptiResult guestCallbackState(uint32_t *On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain,
                                 CUpti_CallbackId Id);
  CUptiResult guestRegisterBuffers(CUpti_BuffersCallbackRequestFunc Request, CUpti_BuffersCallbackCompleteFunc Complete,
                                   const char *Who = nullptr, std::uint64_t Now = 0);
  CUptiResult guestEnableKind(bool On, CUpti_ActivityKind Kind);
  CUptiResult guestFlush(uint32_t Flag);
  CUptiResult guestFinalize();

  // Ids a domain has, for domain-wide enables (0 for an unknown domain).
  static CUpti_CallbackId idsOf(CUpti_CallbackDomain Domain);
  static constexpr std::uint32_t kDomains = CUPTI_CB_DOMAIN_SIZE, kMaxIds = 1024,
                                 kKinds = CUPTI_ACTIVITY_KIND_COUNT;

private:
  using Bits = std::atomic<std::uint64_t>[kDomains][kMaxIds / 64];
  static bool bit(const Bits &B, CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
    return Domain < kDomains && Id < kMaxIds &&
           (B[Domain][Id / 64].load(std::memory_order_relaxed) >> (Id % 64) & 1);
  }
  static void setBit(Bits &B, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, bool On);
  // (with Lock held) one id's bit of one side, CUPTI's state following the union.
  CUptiResult applyCallback(Bits &Side, bool On, CUpti_CallbackDomain Domain, CUpti_CallbackId Id);
  CUptiResult applyKind(std::atomic<bool> *Side, bool On, CUpti_ActivityKind Kind);
  bool isGuest(CUpti_SubscriberHandle Handle) const { return Handle == guestHandle(); }
  CUpti_SubscriberHandle guestHandle() const;
  void dropGuestCallbacks();
  void nameGuest(const char *Who, std::uint64_t Now);
  void updateGuestHere();
  // The guest's stocked buffer (see stockGuestBuffer): taken by a forward, put back after.
  struct GuestBuffer {
    std::uint8_t *Data = nullptr;
    std::size_t Size = 0;
  };
  GuestBuffer takeGuestBuffer(CUpti_BuffersCallbackRequestFunc Request);
  void putGuestBuffer(GuestBuffer B, CUpti_BuffersCallbackCompleteFunc Complete);
  void stockGuestBuffer();
  void returnGuestBuffer();

  const RealCupti &Real;
  mutable std::mutex Lock;  // the slow paths: enables, subscribes (never held in a guest's callback)
  CUpti_SubscriberHandle OurHandle = nullptr;
  std::atomic<bool> Owned{false};      // syncwatch is subscribed (and shares)
  bool Disabled = false;
  std::atomic<bool> GuestHere{false};  // a guest subscribed or registered buffers
  Bits Ours = {}, Guest = {};
  std::atomic<bool> OurKinds[kKinds] = {}, GuestKinds[kKinds] = {};
  // Switched off (setOursActive): syncwatch's wishes, applied when switched on again
  // (with Lock held; Bits for bit() and setBit()).
  bool OursOff = false;
  Bits OursWhenOn = {};
  bool OurKindsWhenOn[kKinds] = {};
  std::atomic<bool> GuestDraining[kKinds] = {};  // turned off by the guest, not yet flushed
  std::atomic<CUpti_CallbackFunc> GuestCallback{nullptr};
  void *GuestUserdata = nullptr;
  bool GuestSubscribed = false, OurBuffers = false;
  CUpti_BuffersCallbackRequestFunc GuestRequest = nullptr;
  CUpti_BuffersCallbackCompleteFunc GuestComplete = nullptr;
  std::string GuestName, Holder;
  std::uint64_t GuestSince = 0, OurSince = 0;  // CUPTI times of the subscriptions
  std::atomic<std::uint64_t> RecordsForwarded{0}, RecordsDropped{0};
  std::mutex StockLock;  // guards Stock only (never held while the guest's callbacks run)
  GuestBuffer Stock;
};

// The process's (made at first use, never freed: CUPTI calls come from any thread, at exit too).
CuptiSharing &cuptiSharing();

} // namespace syncwatch::runtime
