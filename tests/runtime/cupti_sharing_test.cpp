// CuptiSharing (interposer/cupti/CuptiSharing.h) against a fake CUPTI that, like CUPTI on
// drivers before r610, takes one subscriber: a profiler that subscribes after syncwatch
// (torch.profiler's Kineto) gets a handle of its own, its callbacks and its activity
// records; neither side's enables or disables take the other's away; its unsubscribe and
// cuptiFinalize give back only what it took; before syncwatch subscribes, calls go to CUPTI.
#include "../../interposer/cupti/CuptiSharing.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace syncwatch::runtime;

namespace {

// --- the fake CUPTI --------------------------------------------------------------------
struct FakeState {
  int Subscribers = 0;
  CUpti_CallbackFunc Callback = nullptr;
  std::set<std::pair<int, int>> Enabled;  // (domain, id) on in CUPTI
  std::set<int> Kinds;                    // activity kinds on in CUPTI
  CUpti_BuffersCallbackRequestFunc Request = nullptr;
  CUpti_BuffersCallbackCompleteFunc Complete = nullptr;
  int Finalized = 0, Flushes = 0, EnableCalls = 0;
} Fake;
char FakeSubscriber;

CUptiResult CUPTIAPI fakeSubscribe(CUpti_SubscriberHandle *H, CUpti_CallbackFunc F, void *) {
  if (Fake.Subscribers)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  ++Fake.Subscribers;
  Fake.Callback = F;
  *H = reinterpret_cast<CUpti_SubscriberHandle>(&FakeSubscriber);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeUnsubscribe(CUpti_SubscriberHandle) {
  --Fake.Subscribers;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeEnableCallback(uint32_t On, CUpti_SubscriberHandle H, CUpti_CallbackDomain D,
                                        CUpti_CallbackId Id) {
  if (H != reinterpret_cast<CUpti_SubscriberHandle>(&FakeSubscriber))
    return CUPTI_ERROR_INVALID_PARAMETER;
  ++Fake.EnableCalls;
  if (On)
    Fake.Enabled.insert({D, static_cast<int>(Id)});
  else
    Fake.Enabled.erase({D, static_cast<int>(Id)});
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeEnableDomain(uint32_t On, CUpti_SubscriberHandle H, CUpti_CallbackDomain D) {
  for (CUpti_CallbackId Id = 1; Id < CuptiSharing::idsOf(D); ++Id)
    fakeEnableCallback(On, H, D, Id);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeRegister(CUpti_BuffersCallbackRequestFunc R, CUpti_BuffersCallbackCompleteFunc C) {
  Fake.Request = R;
  Fake.Complete = C;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeEnableKind(CUpti_ActivityKind K) {
  Fake.Kinds.insert(K);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeDisableKind(CUpti_ActivityKind K) {
  Fake.Kinds.erase(K);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeFinalize() {
  ++Fake.Finalized;
  return CUPTI_SUCCESS;
}

// Records as the fake lays them out: the kind, the record's size, then a payload.
struct FakeRecord {
  std::uint32_t Kind, Size;
};
CUptiResult CUPTIAPI fakeNextRecord(uint8_t *Buffer, size_t Valid, CUpti_Activity **Record) {
  uint8_t *Next = *Record ? reinterpret_cast<uint8_t *>(*Record) + reinterpret_cast<FakeRecord *>(*Record)->Size : Buffer;
  if (Next >= Buffer + Valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *Record = reinterpret_cast<CUpti_Activity *>(Next);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI fakeFlush(uint32_t) {
  ++Fake.Flushes;
  return CUPTI_SUCCESS;
}

RealCupti fakeCupti() {
  RealCupti R;
  R.Subscribe = fakeSubscribe;
  R.Unsubscribe = fakeUnsubscribe;
  R.EnableCallback = fakeEnableCallback;
  R.EnableDomain = fakeEnableDomain;
  R.RegisterCallbacks = fakeRegister;
  R.ActivityEnable = fakeEnableKind;
  R.ActivityDisable = fakeDisableKind;
  R.Finalize = fakeFinalize;
  R.GetNextRecord = fakeNextRecord;
  R.FlushAll = fakeFlush;
  return R;
}

// --- the guest: a profiler's callbacks and buffers ---------------------------------------
struct Guest {
  std::vector<std::tuple<int, int, const void *>> Calls;
  std::vector<std::vector<std::uint8_t>> Buffers;  // completed, valid bytes only
  std::size_t BufferSize = 64;
  int Requests = 0, Outstanding = 0;  // asked for; asked for and not yet given back
} G;
void CUPTIAPI guestCallback(void *Userdata, CUpti_CallbackDomain D, CUpti_CallbackId Id, const void *Data) {
  EXPECT_EQ(Userdata, &G);
  G.Calls.emplace_back(D, Id, Data);
}
void CUPTIAPI guestRequest(uint8_t **Buffer, size_t *Size, size_t *MaxRecords) {
  ++G.Requests;
  ++G.Outstanding;
  *Buffer = new uint8_t[G.BufferSize];
  *Size = G.BufferSize;
  *MaxRecords = 0;
}
void CUPTIAPI guestComplete(CUcontext, uint32_t, uint8_t *Buffer, size_t, size_t Valid) {
  G.Buffers.emplace_back(Buffer, Buffer + Valid);
  --G.Outstanding;
  delete[] Buffer;
}
void CUPTIAPI oursCallback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}
void CUPTIAPI oursRequest(uint8_t **, size_t *, size_t *) {}
void CUPTIAPI oursComplete(CUcontext, uint32_t, uint8_t *, size_t, size_t) {}

class CuptiSharingTest : public ::testing::Test {
protected:
  void SetUp() override {
    Fake = FakeState();
    G = Guest();
  }
  RealCupti Real = fakeCupti();
  CuptiSharing S{Real};
  CUpti_SubscriberHandle Ours = nullptr;

  CUpti_SubscriberHandle subscribeGuest() {
    CUpti_SubscriberHandle H = nullptr;
    EXPECT_EQ(S.guestSubscribe(&H, guestCallback, &G, nullptr, false, "libtorch_cuda.so", 1234), CUPTI_SUCCESS);
    return H;
  }
};

constexpr auto Runtime = CUPTI_CB_DOMAIN_RUNTIME_API;

std::vector<std::uint8_t> records(const std::vector<std::pair<std::uint32_t, std::uint32_t>> &KindsAndSizes) {
  std::vector<std::uint8_t> B;
  std::uint8_t Fill = 1;
  for (auto [Kind, Size] : KindsAndSizes) {
    std::size_t At = B.size();
    B.resize(At + Size, Fill++);
    FakeRecord R{Kind, Size};
    std::memcpy(B.data() + At, &R, sizeof R);
  }
  return B;
}

} // namespace

TEST_F(CuptiSharingTest, BeforeSyncwatchSubscribesEveryCallGoesToCupti) {
  CUpti_SubscriberHandle H = nullptr;
  EXPECT_EQ(S.guestSubscribe(&H, guestCallback, &G, nullptr, false, "libtorch_cuda.so", 0), CUPTI_SUCCESS);
  EXPECT_EQ(H, reinterpret_cast<CUpti_SubscriberHandle>(&FakeSubscriber));  // CUPTI's own handle
  EXPECT_EQ(S.holder(), "libtorch_cuda.so");
  EXPECT_FALSE(S.guestActive());
  EXPECT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(S.guestEnableCallback(1, H, Runtime, 13), CUPTI_SUCCESS);
  EXPECT_TRUE(Fake.Enabled.count({Runtime, 13}));
  EXPECT_EQ(S.guestFinalize(), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Finalized, 1);
}

TEST_F(CuptiSharingTest, AProfilerAfterSyncwatchGetsAHandleAndItsCallbacks) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.enableOurs(true, Runtime, 13);  // (say, cudaMemcpy)
  CUpti_SubscriberHandle H = subscribeGuest();
  EXPECT_NE(H, Ours);
  EXPECT_EQ(Fake.Subscribers, 1);  // still syncwatch's one subscription
  EXPECT_TRUE(S.guestActive());
  // A third subscriber is refused as CUPTI would refuse it.
  CUpti_SubscriberHandle Third = nullptr;
  EXPECT_EQ(S.guestSubscribe(&Third, guestCallback, &G, nullptr, false, "libother.so", 0),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);

  EXPECT_EQ(S.guestEnableCallback(1, H, Runtime, 211), CUPTI_SUCCESS);  // (say, cudaLaunchKernel)
  EXPECT_TRUE(Fake.Enabled.count({Runtime, 211}));
  EXPECT_FALSE(S.oursOn(Runtime, 211));  // syncwatch's callback skips its own work there
  EXPECT_TRUE(S.oursOn(Runtime, 13));
  int Data = 0;
  S.toGuest(Runtime, 211, &Data);
  S.toGuest(Runtime, 13, &Data);  // not the guest's: not passed on
  ASSERT_EQ(G.Calls.size(), 1u);
  EXPECT_EQ(G.Calls[0], std::make_tuple(int(Runtime), 211, static_cast<const void *>(&Data)));
  uint32_t On = 9;
  EXPECT_EQ(S.guestCallbackState(&On, H, Runtime, 211), CUPTI_SUCCESS);
  EXPECT_EQ(On, 1u);
  EXPECT_EQ(S.guestCallbackState(&On, H, Runtime, 13), CUPTI_SUCCESS);
  EXPECT_EQ(On, 0u);
}

TEST_F(CuptiSharingTest, NeitherSideTurnsOffWhatTheOtherWants) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  CUpti_SubscriberHandle H = subscribeGuest();
  S.enableOurs(true, Runtime, 13);
  S.guestEnableCallback(1, H, Runtime, 13);
  S.guestEnableCallback(0, H, Runtime, 13);  // the guest is done with it: syncwatch is not
  EXPECT_TRUE(Fake.Enabled.count({Runtime, 13}));
  S.guestEnableCallback(1, H, Runtime, 211);
  S.enableOurs(true, Runtime, 211);
  S.enableOurs(false, Runtime, 211);  // syncwatch's launch callbacks going idle
  EXPECT_TRUE(Fake.Enabled.count({Runtime, 211}));
  EXPECT_FALSE(S.oursOn(Runtime, 211));
  // Activity kinds the same way: the guest's stop disables MEMCPY, which syncwatch reads.
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  EXPECT_EQ(S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_EQ(S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
  EXPECT_TRUE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_MEMCPY));
  EXPECT_TRUE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_FALSE(S.ourKind(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_EQ(S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  EXPECT_FALSE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME));
}

// syncwatch_set_active(0) and (1) (SYNCWATCH_BENCH_TOGGLE): syncwatch's callbacks and kinds
// go off in CUPTI and come back; a profiler sharing the subscription keeps its own; what
// syncwatch turns on or off meanwhile (kernel tracing, launch callbacks) holds after.
TEST_F(CuptiSharingTest, SwitchedOffSyncwatchLeavesTheGuestsAndComesBackAsItWished) {
  constexpr auto Driver = CUPTI_CB_DOMAIN_DRIVER_API;
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.enableOurs(true, Runtime, 13);
  S.enableOurs(true, Driver, 279);
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_STREAM);
  CUpti_SubscriberHandle H = subscribeGuest();
  S.guestEnableCallback(1, H, Runtime, 211);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_STREAM);

  EXPECT_TRUE(S.setOursActive(false));
  EXPECT_FALSE(S.setOursActive(false));  // already off
  EXPECT_EQ(Fake.Enabled, (std::set<std::pair<int, int>>{{Runtime, 211}}));  // the guest's alone
  EXPECT_EQ(Fake.Kinds, (std::set<int>{CUPTI_ACTIVITY_KIND_STREAM}));
  EXPECT_FALSE(S.oursOn(Runtime, 13));
  EXPECT_FALSE(S.ourKind(CUPTI_ACTIVITY_KIND_MEMCPY));
  EXPECT_EQ(Fake.Subscribers, 1);  // the subscription stays

  // While off: kernel tracing turned on, the driver id turned off, launches on - kept only.
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.enableOurs(false, Driver, 279);
  S.enableOurs(true, Runtime, 211);
  EXPECT_EQ(Fake.Kinds, (std::set<int>{CUPTI_ACTIVITY_KIND_STREAM}));
  EXPECT_FALSE(S.oursOn(Runtime, 211));

  EXPECT_TRUE(S.setOursActive(true));
  EXPECT_EQ(Fake.Enabled, (std::set<std::pair<int, int>>{{Runtime, 13}, {Runtime, 211}}));
  EXPECT_EQ(Fake.Kinds, (std::set<int>{CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_STREAM,
                                       CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}));
  EXPECT_TRUE(S.oursOn(Runtime, 13) && S.oursOn(Runtime, 211) && !S.oursOn(Driver, 279));
  // The guest's side was never touched: its stop now turns STREAM off only if syncwatch
  // does not want it.
  S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_STREAM);
  EXPECT_TRUE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_STREAM));
}

TEST_F(CuptiSharingTest, TheGuestsRecordsAreCopiedIntoItsOwnBuffersInOrder) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.registerOurBuffers(oursRequest, oursComplete);
  EXPECT_EQ(S.guestRegisterBuffers(guestRequest, guestComplete, "libtorch_cuda.so", 99), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Complete, oursComplete);  // CUPTI still fills syncwatch's buffers
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // memcpy 24, stream 16 (syncwatch's only), kernel 40, memcpy 24, kernel 32: the guest's
  // 64-byte buffers take 24 + 40 (64), then 24 + 32 in a second.
  auto B = records({{CUPTI_ACTIVITY_KIND_MEMCPY, 24},
                    {CUPTI_ACTIVITY_KIND_STREAM, 16},
                    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 40},
                    {CUPTI_ACTIVITY_KIND_MEMCPY, 24},
                    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 32}});
  S.forwardRecords(nullptr, 0, B.data(), B.size());
  ASSERT_EQ(G.Buffers.size(), 2u);
  std::vector<std::uint8_t> Want1(B.begin(), B.begin() + 24);
  Want1.insert(Want1.end(), B.begin() + 40, B.begin() + 80);
  std::vector<std::uint8_t> Want2(B.begin() + 80, B.end());
  EXPECT_EQ(G.Buffers[0], Want1);
  EXPECT_EQ(G.Buffers[1], Want2);
  EXPECT_EQ(G.Requests, 3);  // the stocked one, a second, and the next stock
  EXPECT_NE(S.guestSummary().find("libtorch_cuda.so"), std::string::npos);
  EXPECT_NE(S.guestSummary().find("4 activity records passed on"), std::string::npos);
  // A buffer with none of the guest's kinds asks it for no buffer at all.
  auto Mine = records({{CUPTI_ACTIVITY_KIND_STREAM, 16}});
  S.forwardRecords(nullptr, 0, Mine.data(), Mine.size());
  EXPECT_EQ(G.Requests, 3);
  EXPECT_EQ(G.Buffers.size(), 2u);
}

// Kineto's stop flushes CUPTI only when it has a buffer out (CuptiActivityApi::
// activityBuffers); CUPTI asks for one as soon as activity is on. Without a stocked buffer
// its trace had 0 of 80 kernels under syncwatch (H100, torch 2.11).
TEST_F(CuptiSharingTest, TheGuestHoldsABufferWhileItsActivityIsOn) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.registerOurBuffers(oursRequest, oursComplete);
  EXPECT_EQ(S.guestRegisterBuffers(guestRequest, guestComplete, "libtorch_cpu.so", 5), CUPTI_SUCCESS);
  EXPECT_EQ(G.Requests, 0);  // nothing on yet: nothing to hold
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(G.Requests, 1);  // one buffer out, as CUPTI would have it, and only one
  EXPECT_TRUE(G.Buffers.empty());
  // The guest's forced flush reaches syncwatch's buffer; its kernel fills the stocked buffer.
  auto B = records({{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 40}});
  S.forwardRecords(nullptr, 0, B.data(), B.size());
  ASSERT_EQ(G.Buffers.size(), 1u);
  EXPECT_EQ(G.Buffers[0], B);
  EXPECT_EQ(G.Requests, 2);  // and the next one is out already
  // cuptiFinalize (Kineto's TEARDOWN_CUPTI=1) hands the held buffer back, empty.
  EXPECT_EQ(S.guestFinalize(), CUPTI_SUCCESS);
  ASSERT_EQ(G.Buffers.size(), 2u);
  EXPECT_TRUE(G.Buffers[1].empty());
  EXPECT_EQ(G.Outstanding, 0);
}

// Kineto's stop turns its kinds off first and flushes after (CuptiActivityProfiler), and
// CUPTI delivers what was recorded before the disable: those kinds are copied until the
// guest's flush, and not after it.
TEST_F(CuptiSharingTest, RecordsMadeBeforeTheGuestsDisableReachItsFlush) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.registerOurBuffers(oursRequest, oursComplete);
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestRegisterBuffers(guestRequest, guestComplete, "libtorch_cpu.so", 5);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_TRUE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_MEMCPY));  // syncwatch's, still on
  EXPECT_FALSE(Fake.Kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  auto B = records({{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 32}, {CUPTI_ACTIVITY_KIND_MEMCPY, 24}});
  EXPECT_EQ(S.guestFlush(1), CUPTI_SUCCESS);  // (the fake's flush completes nothing itself:)
  EXPECT_EQ(Fake.Flushes, 1);
  EXPECT_TRUE(G.Buffers.empty());
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.guestEnableKind(false, CUPTI_ACTIVITY_KIND_MEMCPY);
  S.forwardRecords(nullptr, 0, B.data(), B.size());  // what the guest's flush brings
  ASSERT_EQ(G.Buffers.size(), 1u);
  EXPECT_EQ(G.Buffers[0], B);
  S.guestFlush(1);
  // After the flush: syncwatch's memcpy records are its own again.
  S.forwardRecords(nullptr, 0, B.data(), B.size());
  EXPECT_EQ(G.Buffers.size(), 1u);
}

// Before syncwatch's own buffers are registered, the guest's registration went to CUPTI,
// which asks for buffers itself: nothing is stocked then.
TEST_F(CuptiSharingTest, NoBufferIsStockedWhereCuptiFillsTheGuestsOwn) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  EXPECT_EQ(S.guestRegisterBuffers(guestRequest, guestComplete, "libtorch_cpu.so", 5), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Complete, guestComplete);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(G.Requests, 0);
}

// Two copies of libsyncwatch.so preloaded: the second is refused, so that one reports.
TEST_F(CuptiSharingTest, AnotherSyncwatchCopyIsNotAGuest) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  CUpti_SubscriberHandle H = nullptr;
  EXPECT_EQ(S.guestSubscribe(&H, guestCallback, &G, nullptr, false, "libsyncwatch-copy.so", 0),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(H, nullptr);
  EXPECT_FALSE(S.guestActive());
  EXPECT_EQ(S.guestSummary(), "");
}

TEST_F(CuptiSharingTest, SyncwatchsNvtxDomainStaysOnWhenTheGuestLeaves) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  EXPECT_TRUE(S.enableOurDomain(true, CUPTI_CB_DOMAIN_NVTX));  // SYNCWATCH_STEP
  EXPECT_TRUE(S.oursOn(CUPTI_CB_DOMAIN_NVTX, 1));
  CUpti_SubscriberHandle H = subscribeGuest();
  S.guestEnableDomain(1, H, CUPTI_CB_DOMAIN_NVTX);
  S.guestUnsubscribe(H);
  EXPECT_TRUE(Fake.Enabled.count({CUPTI_CB_DOMAIN_NVTX, 1}));
}

TEST_F(CuptiSharingTest, ACuptiThatScopesActivityToSubscribersDecidesItself) {
  Real.SubscriberScoped = true;  // CUPTI 13.2+: a guest would hand CUPTI its handle
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  CUpti_SubscriberHandle H = nullptr;
  EXPECT_EQ(S.guestSubscribe(&H, guestCallback, &G, nullptr, false, "libtorch_cuda.so", 0),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);  // the fake takes one, as driver 580
  EXPECT_EQ(H, nullptr);
  EXPECT_FALSE(S.guestActive());
}

TEST_F(CuptiSharingTest, WithSharingOffASecondSubscriberIsRefusedAsByCupti) {
  S.disable();  // SYNCWATCH_SHARE_CUPTI=0
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.registerOurBuffers(oursRequest, oursComplete);
  CUpti_SubscriberHandle H = nullptr;
  EXPECT_EQ(S.guestSubscribe(&H, guestCallback, &G, nullptr, false, "libtorch_cuda.so", 0),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(S.guestRegisterBuffers(guestRequest, guestComplete), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Complete, guestComplete);  // CUPTI's own behaviour: the last registration
  EXPECT_FALSE(S.guestActive());
}

TEST_F(CuptiSharingTest, UnsubscribeAndFinalizeGiveBackOnlyTheGuests) {
  ASSERT_EQ(S.subscribeOurs(&Ours, oursCallback), CUPTI_SUCCESS);
  S.registerOurBuffers(oursRequest, oursComplete);
  S.enableOurs(true, Runtime, 13);
  S.enableOurKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  CUpti_SubscriberHandle H = subscribeGuest();
  S.guestEnableDomain(1, H, CUPTI_CB_DOMAIN_RESOURCE);
  S.guestEnableCallback(1, H, Runtime, 13);
  EXPECT_EQ(S.guestUnsubscribe(H), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Subscribers, 1);
  EXPECT_EQ(Fake.Enabled, (std::set<std::pair<int, int>>{{Runtime, 13}}));
  int Data = 0;
  S.toGuest(Runtime, 13, &Data);
  EXPECT_TRUE(G.Calls.empty());
  // Kineto's TEARDOWN_CUPTI=1: records flushed to it, its kinds off, never syncwatch's
  // subscription or CUPTI itself.
  H = subscribeGuest();
  S.guestRegisterBuffers(guestRequest, guestComplete);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  S.guestEnableKind(true, CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(S.guestFinalize(), CUPTI_SUCCESS);
  EXPECT_EQ(Fake.Flushes, 1);
  EXPECT_EQ(Fake.Finalized, 0);
  EXPECT_EQ(Fake.Kinds, (std::set<int>{CUPTI_ACTIVITY_KIND_MEMCPY}));
  EXPECT_FALSE(S.guestActive());
  // And it may come back (Kineto's lazy re-init).
  H = subscribeGuest();
  EXPECT_TRUE(S.guestActive());
}
