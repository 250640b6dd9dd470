// CuptiSharing.h: one CUPTI subscription shared with a second subscriber.
#include "CuptiSharing.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace syncwatch::runtime {

namespace {

// The guest's handle: an address of our own, never a CUPTI subscriber.
char GuestToken;

template <typename F> void lookUp(F &Slot, const char *Name) {
  Slot = reinterpret_cast<F>(::dlsym(RTLD_NEXT, Name));
  if (!Slot)  // (linked into a program rather than preloaded: CUPTI is found by default)
    Slot = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, Name));
}

} // namespace

const RealCupti &realCupti() {
  static const RealCupti *Table = [] {
    auto *T = new RealCupti;
    lookUp(T->Subscribe, "cuptiSubscribe");
    lookUp(T->SubscribeV2, "cuptiSubscribe_v2");
    lookUp(T->Unsubscribe, "cuptiUnsubscribe");
    lookUp(T->EnableCallback, "cuptiEnableCallback");
    lookUp(T->EnableDomain, "cuptiEnableDomain");
    lookUp(T->EnableAllDomains, "cuptiEnableAllDomains");
    lookUp(T->GetCallbackState, "cuptiGetCallbackState");
    lookUp(T->RegisterCallbacks, "cuptiActivityRegisterCallbacks");
    lookUp(T->ActivityEnable, "cuptiActivityEnable");
    lookUp(T->ActivityDisable, "cuptiActivityDisable");
    lookUp(T->FlushAll, "cuptiActivityFlushAll");
    lookUp(T->Finalize, "cuptiFinalize");
    lookUp(T->GetNextRecord, "cuptiActivityGetNextRecord");
    void *Scoped = nullptr;
    lookUp(Scoped, "cuptiActivityRegisterCallbacks_v2");
    T->SubscriberScoped = Scoped != nullptr;
    return T;
  }();
  return *Table;
}

CuptiSharing &cuptiSharing() {
  static CuptiSharing *S = new CuptiSharing(realCupti());
  return *S;
}

CUpti_CallbackId CuptiSharing::idsOf(CUpti_CallbackDomain Domain) {
  switch (Domain) {
  case CUPTI_CB_DOMAIN_DRIVER_API: return CUPTI_DRIVER_TRACE_CBID_SIZE;
  case CUPTI_CB_DOMAIN_RUNTIME_API: return CUPTI_RUNTIME_TRACE_CBID_SIZE;
  case CUPTI_CB_DOMAIN_RESOURCE: return CUPTI_CBID_RESOURCE_SIZE;
  case CUPTI_CB_DOMAIN_SYNCHRONIZE: return CUPTI_CBID_SYNCHRONIZE_SIZE;
  case CUPTI_CB_DOMAIN_NVTX: return CUPTI_CBID_NVTX_SIZE;
  case CUPTI_CB_DOMAIN_STATE: return CUPTI_CBID_STATE_SIZE;
  default: return 0;
  }
}

CUpti_SubscriberHandle CuptiSharing::guestHandle() const {
  return reinterpret_cast<CUpti_SubscriberHandle>(&GuestToken);
}

void CuptiSharing::setBit(Bits &B, CUpti_CallbackDomain Domain, CUpti_CallbackId Id, bool On) {
  std::uint64_t Mask = std::uint64_t{1} << (Id % 64);
  if (On)
    B[Domain][Id / 64].fetch_or(Mask, std::memory_order_relaxed);
  else
    B[Domain][Id / 64].fetch_and(~Mask, std::memory_order_relaxed);
}

CUptiResult CuptiSharing::applyCallback(Bits &Side, bool On, CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (Domain >= kDomains || Id >= kMaxIds)
    return CUPTI_ERROR_INVALID_PARAMETER;
  bool Before = bit(Ours, Domain, Id) || bit(Guest, Domain, Id);
  setBit(Side, Domain, Id, On);
  bool After = bit(Ours, Domain, Id) || bit(Guest, Domain, Id);
  if (Before == After)
    return CUPTI_SUCCESS;
  CUptiResult R = Real.EnableCallback(After ? 1 : 0, OurHandle, Domain, Id);
  if (R != CUPTI_SUCCESS)
    setBit(Side, Domain, Id, !On);  // CUPTI's state did not change
  return R;
}

CUptiResult CuptiSharing::applyKind(std::atomic<bool> *Side, bool On, CUpti_ActivityKind Kind) {
  if (static_cast<std::uint32_t>(Kind) >= kKinds)
    return Real.ActivityEnable ? (On ? Real.ActivityEnable(Kind) : Real.ActivityDisable(Kind))
                               : CUPTI_ERROR_INVALID_KIND;
  bool Before = OurKinds[Kind].load() || GuestKinds[Kind].load();
  bool Was = Side[Kind].exchange(On);
  bool After = OurKinds[Kind].load() || GuestKinds[Kind].load();
  if (Before == After)
    return CUPTI_SUCCESS;
  CUptiResult R = After ? Real.ActivityEnable(Kind) : Real.ActivityDisable(Kind);
  if (R != CUPTI_SUCCESS)
    Side[Kind].store(Was);
  return R;
}

void CuptiSharing::updateGuestHere() {
  GuestHere.store(Owned.load() && (GuestSubscribed || GuestComplete), std::memory_order_relaxed);
}

// --- syncwatch's side ---------------------------------------------------------------

CUptiResult CuptiSharing::subscribeOurs(CUpti_SubscriberHandle *Handle, CUpti_CallbackFunc Callback,
                                        std::uint64_t Now) {
  std::lock_guard<std::mutex> G(Lock);
  CUptiResult R = Real.Subscribe(Handle, Callback, nullptr);
  if (R == CUPTI_SUCCESS) {
    OurHandle = *Handle;
    OurSince = Now;
    Owned.store(!Disabled);
    updateGuestHere();
  }
  return R;
}

void CuptiSharing::enableOurs(bool On, CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  std::lock_guard<std::mutex> G(Lock);
  if (OursOff) {
    if (Domain < kDomains && Id < kMaxIds)
      setBit(OursWhenOn, Domain, Id, On);
    return;
  }
  applyCallback(Ours, On, Domain, Id);
}

bool CuptiSharing::enableOurDomain(bool On, CUpti_CallbackDomain Domain) {
  std::lock_guard<std::mutex> G(Lock);
  if (OursOff) {
    for (CUpti_CallbackId Id = 1; Domain < kDomains && Id < idsOf(Domain) && Id < kMaxIds; ++Id)
      setBit(OursWhenOn, Domain, Id, On);
    return Domain < kDomains;
  }
  if (On && Domain < kDomains) {
    // CUPTI's own domain switch, as syncwatch used before sharing (the NVTX domain for
    // SYNCWATCH_STEP); its ids then count as syncwatch's.
    if (Real.EnableDomain(1, OurHandle, Domain) != CUPTI_SUCCESS)
      return false;
    for (CUpti_CallbackId Id = 1; Id < idsOf(Domain) && Id < kMaxIds; ++Id)
      setBit(Ours, Domain, Id, true);
    return true;
  }
  bool Any = false;
  for (CUpti_CallbackId Id = 1; Id < idsOf(Domain) && Id < kMaxIds; ++Id)
    Any |= applyCallback(Ours, On, Domain, Id) == CUPTI_SUCCESS;
  return Any;
}

void CuptiSharing::enableOurKind(bool On, CUpti_ActivityKind Kind) {
  std::lock_guard<std::mutex> G(Lock);
  if (OursOff) {
    if (static_cast<std::uint32_t>(Kind) < kKinds)
      OurKindsWhenOn[Kind] = On;
    return;
  }
  applyKind(OurKinds, On, Kind);
}

bool CuptiSharing::setOursActive(bool Active) {
  std::lock_guard<std::mutex> G(Lock);
  if (OursOff == !Active)
    return false;
  if (!Active) {  // what is on now is what comes back on (with what is asked for meanwhile)
    for (std::uint32_t D = 0; D < kDomains; ++D) {
      auto Domain = static_cast<CUpti_CallbackDomain>(D);
      for (CUpti_CallbackId Id = 1; Id < kMaxIds; ++Id)
        setBit(OursWhenOn, Domain, Id, bit(Ours, Domain, Id));
    }
    for (std::uint32_t K = 0; K < kKinds; ++K)
      OurKindsWhenOn[K] = OurKinds[K].load();
  }
  for (std::uint32_t D = 0; D < kDomains; ++D) {
    auto Domain = static_cast<CUpti_CallbackDomain>(D);
    for (CUpti_CallbackId Id = 1; Id < kMaxIds; ++Id)
      if (bit(OursWhenOn, Domain, Id))
        applyCallback(Ours, Active, Domain, Id);
  }
  for (std::uint32_t K = 0; K < kKinds; ++K)
    if (OurKindsWhenOn[K])
      applyKind(OurKinds, Active, static_cast<CUpti_ActivityKind>(K));
  OursOff = !Active;
  return true;
}

void CuptiSharing::registerOurBuffers(CUpti_BuffersCallbackRequestFunc Request,
                                      CUpti_BuffersCallbackCompleteFunc Complete) {
  {
    std::lock_guard<std::mutex> G(Lock);
    // A guest that registered before syncwatch (passed on to CUPTI then) keeps its buffers:
    // from now on they are filled from syncwatch's.
    if (Real.RegisterCallbacks(Request, Complete) == CUPTI_SUCCESS)
      OurBuffers = true;
  }
  stockGuestBuffer();
}

void CuptiSharing::toGuest(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Data) const {
  CUpti_CallbackFunc F = GuestCallback.load(std::memory_order_acquire);
  if (F && bit(Guest, Domain, Id))
    F(GuestUserdata, Domain, Id, Data);
}

// No lock is held while the guest's callbacks run: they take locks of their own (Kineto's
// buffer map), and the guest may call into CUPTI - and so into this class - holding them.
// CUPTI itself calls them from its own thread and from a flush's, as here.
void CuptiSharing::forwardRecords(CUcontext Context, uint32_t StreamId, std::uint8_t *Buffer, std::size_t Valid) {
  CUpti_BuffersCallbackRequestFunc GuestRequest;
  CUpti_BuffersCallbackCompleteFunc GuestComplete;
  {
    std::lock_guard<std::mutex> G(Lock);
    GuestRequest = this->GuestRequest;
    GuestComplete = this->GuestComplete;
  }
  if (!GuestRequest || !GuestComplete || !Buffer || !Valid)
    return;
  GuestBuffer Out;
  std::size_t OutUsed = 0;
  bool Handed = false;
  auto handOver = [&] {
    if (Out.Data)
      GuestComplete(Context, StreamId, Out.Data, Out.Size, OutUsed);
    Handed |= Out.Data != nullptr;
    Out = {};
    OutUsed = 0;
  };
  // Records lie one after the other: a record's size is the distance to the next.
  CUpti_Activity *Record = nullptr;
  if (Real.GetNextRecord(Buffer, Valid, &Record) != CUPTI_SUCCESS)
    return;
  while (Record) {
    CUpti_Activity *Next = Record;
    bool More = Real.GetNextRecord(Buffer, Valid, &Next) == CUPTI_SUCCESS;
    auto *Start = reinterpret_cast<std::uint8_t *>(Record);
    std::size_t Size = More ? static_cast<std::size_t>(reinterpret_cast<std::uint8_t *>(Next) - Start)
                            : static_cast<std::size_t>(Buffer + Valid - Start);
    std::uint32_t Kind = Record->kind;
    if (Kind < kKinds && (GuestKinds[Kind].load(std::memory_order_relaxed) ||
                          GuestDraining[Kind].load(std::memory_order_relaxed))) {
      if (Out.Data && OutUsed + Size > Out.Size)
        handOver();
      if (!Out.Data) {
        Out = takeGuestBuffer(GuestRequest);
        if (Out.Data && Out.Size < Size)  // a buffer too small for one record: given back empty
          handOver();
      }
      if (Out.Data) {
        std::memcpy(Out.Data + OutUsed, Start, Size);
        OutUsed += Size;
        RecordsForwarded.fetch_add(1, std::memory_order_relaxed);
      } else {
        RecordsDropped.fetch_add(1, std::memory_order_relaxed);
      }
    }
    Record = More ? Next : nullptr;
  }
  handOver();
  if (Handed)
    stockGuestBuffer();  // the next records' buffer, out before the guest's next flush
}

// The stock is taken and put back under StockLock, and the guest's callbacks run outside it.
CuptiSharing::GuestBuffer CuptiSharing::takeGuestBuffer(CUpti_BuffersCallbackRequestFunc Request) {
  GuestBuffer B;
  {
    std::lock_guard<std::mutex> G(StockLock);
    std::swap(B, Stock);
  }
  if (!B.Data && Request) {
    std::size_t MaxRecords = 0;
    Request(&B.Data, &B.Size, &MaxRecords);
  }
  return B;
}

void CuptiSharing::putGuestBuffer(GuestBuffer B, CUpti_BuffersCallbackCompleteFunc Complete) {
  {
    std::lock_guard<std::mutex> G(StockLock);
    if (!Stock.Data)
      std::swap(B, Stock);
  }
  if (B.Data && Complete)  // another thread stocked one meanwhile: this one goes back empty
    Complete(nullptr, 0, B.Data, B.Size, 0);
}

void CuptiSharing::stockGuestBuffer() {
  CUpti_BuffersCallbackRequestFunc Request;
  CUpti_BuffersCallbackCompleteFunc Complete;
  bool AnyKind = false;
  {
    std::lock_guard<std::mutex> G(Lock);
    if (!Owned.load() || !OurBuffers)
      return;
    Request = GuestRequest;
    Complete = GuestComplete;
    for (std::uint32_t K = 0; K < kKinds && !AnyKind; ++K)
      AnyKind = GuestKinds[K].load(std::memory_order_relaxed);
  }
  if (!Request || !Complete || !AnyKind)
    return;
  {
    std::lock_guard<std::mutex> G(StockLock);
    if (Stock.Data)
      return;
  }
  putGuestBuffer(takeGuestBuffer(Request), Complete);
}

// The stocked buffer handed back empty, as CUPTI's finalize returns the buffers it holds.
void CuptiSharing::returnGuestBuffer() {
  CUpti_BuffersCallbackCompleteFunc Complete;
  {
    std::lock_guard<std::mutex> G(Lock);
    Complete = GuestComplete;
  }
  GuestBuffer B;
  {
    std::lock_guard<std::mutex> G(StockLock);
    std::swap(B, Stock);
  }
  if (B.Data && Complete)
    Complete(nullptr, 0, B.Data, B.Size, 0);
}

std::string CuptiSharing::guestSummary() const {
  std::lock_guard<std::mutex> G(Lock);
  if (GuestName.empty())
    return "";
  char Since[64] = "";
  if (GuestSince > OurSince && OurSince)
    std::snprintf(Since, sizeof Since, ", %.2f s after syncwatch", static_cast<double>(GuestSince - OurSince) / 1e9);
  std::string S = GuestName + " (it subscribed second" + Since + "): its callbacks and " +
                  std::to_string(RecordsForwarded.load()) + " activity records passed on";
  if (RecordsDropped.load())
    S += ", " + std::to_string(RecordsDropped.load()) + " dropped (it gave no buffer)";
  return S;
}

std::string CuptiSharing::holder() const {
  std::lock_guard<std::mutex> G(Lock);
  return Holder;
}

// --- the other subscriber's side ------------------------------------------------------

CUptiResult CuptiSharing::guestSubscribe(CUpti_SubscriberHandle *Handle, CUpti_CallbackFunc Callback, void *Userdata,
                                         CUpti_SubscriberParams *Params, bool V2, const char *Who,
                                         std::uint64_t Now) {
  std::lock_guard<std::mutex> G(Lock);
  if (!Owned.load() || Real.SubscriberScoped) {
    CUptiResult R = V2 && Real.SubscribeV2 ? Real.SubscribeV2(Handle, Callback, Userdata, Params)
                                           : Real.Subscribe(Handle, Callback, Userdata);
    if (R == CUPTI_SUCCESS && Who)
      Holder = Who;
    return R;
  }
  if (!Handle)
    return CUPTI_ERROR_INVALID_PARAMETER;
  // A third subscriber is refused as CUPTI refuses a second; so is another copy of
  // libsyncwatch (two preloaded): as a guest it would write the same report again (seen on
  // an H100), refused it says it is not active and this one reports.
  if (GuestSubscribed || (Who && std::strncmp(Who, "libsyncwatch", 12) == 0))
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  GuestUserdata = Userdata;
  GuestCallback.store(Callback, std::memory_order_release);
  GuestSubscribed = true;
  nameGuest(Who, Now);
  *Handle = guestHandle();
  updateGuestHere();
  return CUPTI_SUCCESS;
}

void CuptiSharing::nameGuest(const char *Who, std::uint64_t Now) {
  if (GuestName.empty() && Owned.load()) {
    GuestName = Who ? Who : "another CUPTI tool";
    GuestSince = Now;
  }
}

void CuptiSharing::dropGuestCallbacks() {
  for (std::uint32_t D = 0; D < kDomains; ++D)
    for (CUpti_CallbackId Id = 0; Id < kMaxIds; ++Id)
      if (bit(Guest, static_cast<CUpti_CallbackDomain>(D), Id))
        applyCallback(Guest, false, static_cast<CUpti_CallbackDomain>(D), Id);
}

CUptiResult CuptiSharing::guestUnsubscribe(CUpti_SubscriberHandle Handle) {
  std::lock_guard<std::mutex> G(Lock);
  if (!isGuest(Handle))
    return Real.Unsubscribe(Handle);
  dropGuestCallbacks();
  GuestCallback.store(nullptr, std::memory_order_release);
  GuestSubscribed = false;
  updateGuestHere();
  return CUPTI_SUCCESS;
}

CUptiResult CuptiSharing::guestEnableCallback(uint32_t On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain,
                                              CUpti_CallbackId Id) {
  std::lock_guard<std::mutex> G(Lock);
  if (!isGuest(Handle))
    return Real.EnableCallback(On, Handle, Domain, Id);
  return applyCallback(Guest, On != 0, Domain, Id);
}

CUptiResult CuptiSharing::guestEnableDomain(uint32_t On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain) {
  std::lock_guard<std::mutex> G(Lock);
  if (!isGuest(Handle))
    return Real.EnableDomain(On, Handle, Domain);
  if (!idsOf(Domain))
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (CUpti_CallbackId Id = 1; Id < idsOf(Domain) && Id < kMaxIds; ++Id)
    applyCallback(Guest, On != 0, Domain, Id);  // (ids CUPTI refuses stay off, as in CUPTI)
  return CUPTI_SUCCESS;
}

CUptiResult CuptiSharing::guestEnableAllDomains(uint32_t On, CUpti_SubscriberHandle Handle) {
  if (!isGuest(Handle)) {
    std::lock_guard<std::mutex> G(Lock);
    return Real.EnableAllDomains(On, Handle);
  }
  for (std::uint32_t D = 1; D < kDomains; ++D)
    guestEnableDomain(On, Handle, static_cast<CUpti_CallbackDomain>(D));
  return CUPTI_SUCCESS;
}

CUptiResult CuptiSharing::guestCallbackState(uint32_t *On, CUpti_SubscriberHandle Handle, CUpti_CallbackDomain Domain,
                                             CUpti_CallbackId Id) {
  if (!isGuest(Handle))
    return Real.GetCallbackState(On, Handle, Domain, Id);
  if (!On || Domain >= kDomains || Id >= kMaxIds)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *On = bit(Guest, Domain, Id) ? 1 : 0;
  return CUPTI_SUCCESS;
}

CUptiResult CuptiSharing::guestRegisterBuffers(CUpti_BuffersCallbackRequestFunc Request,
                                               CUpti_BuffersCallbackCompleteFunc Complete, const char *Who,
                                               std::uint64_t Now) {
  {
    std::lock_guard<std::mutex> G(Lock);
    nameGuest(Who, Now);
    if (Request != GuestRequest || Complete != GuestComplete) {
      std::lock_guard<std::mutex> S(StockLock);
      Stock = {};  // (a buffer of the old callbacks' is theirs; the new ones stock their own)
    }
    GuestRequest = Request;
    GuestComplete = Complete;
    updateGuestHere();
    if (!OurBuffers || !Owned.load())
      return Real.RegisterCallbacks(Request, Complete);
  }
  stockGuestBuffer();
  return CUPTI_SUCCESS;
}

CUptiResult CuptiSharing::guestEnableKind(bool On, CUpti_ActivityKind Kind) {
  CUptiResult R;
  {
    std::lock_guard<std::mutex> G(Lock);
    bool Was = static_cast<std::uint32_t>(Kind) < kKinds && GuestKinds[Kind].load();
    R = applyKind(GuestKinds, On, Kind);
    if (R == CUPTI_SUCCESS && static_cast<std::uint32_t>(Kind) < kKinds && Owned.load())
      GuestDraining[Kind].store(!On && (Was || GuestDraining[Kind].load()));
  }
  if (R == CUPTI_SUCCESS && On)
    stockGuestBuffer();
  return R;
}

// The guest's flush: CUPTI's, which completes syncwatch's buffers and so copies the guest's
// records (those of kinds it turned off since its last flush too); then those kinds stop.
CUptiResult CuptiSharing::guestFlush(uint32_t Flag) {
  CUptiResult R = Real.FlushAll ? Real.FlushAll(Flag) : CUPTI_ERROR_NOT_INITIALIZED;
  if (Owned.load())
    for (auto &D : GuestDraining)
      D.store(false, std::memory_order_relaxed);
  return R;
}

CUptiResult CuptiSharing::guestFinalize() {
  if (!Owned.load())
    return Real.Finalize();
  // Kineto's TEARDOWN_CUPTI=1: its records first (the flush comes back through
  // forwardRecords), then all it enabled taken back; syncwatch's subscription stays.
  guestFlush(1);
  returnGuestBuffer();
  std::lock_guard<std::mutex> G(Lock);
  for (std::uint32_t K = 0; K < kKinds; ++K)
    if (GuestKinds[K].load())
      applyKind(GuestKinds, false, static_cast<CUpti_ActivityKind>(K));
  dropGuestCallbacks();
  GuestCallback.store(nullptr, std::memory_order_release);
  GuestSubscribed = false;
  GuestRequest = nullptr;
  GuestComplete = nullptr;
  updateGuestHere();
  return CUPTI_SUCCESS;
}

} // namespace syncwatch::runtime
