// SYNCWATCH_STATS=1's account of syncwatch's own work (interposer/recorder/SelfStats.h): the
// counts reach the text, rows come most frequent first, and the parts of every thread that
// made calls are summed.
#include "../../interposer/cupti/CallDecoding.h"
#include "../../interposer/recorder/HostClock.h"
#include "../../interposer/recorder/SelfStats.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

using namespace syncwatch::runtime;

namespace {
std::uint64_t steadyNs() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
std::string_view nameOf(CallbackKey K) {
  if (K == keyOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000))
    return "cudaLaunchKernel_v7000";
  if (K == keyOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020))
    return "cudaStreamSynchronize_v3020";
  if (K == keyOf(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx))
    return "cuLaunchKernelEx";
  return "?";
}
} // namespace

TEST(SelfStats, CountsReachTheText) {
  EXPECT_FALSE(selfStatsOn());
  startHostClock(steadyNs);
  enableSelfStats(CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_DRIVER_TRACE_CBID_SIZE);
  ASSERT_TRUE(selfStatsOn());
  std::uint64_t Ms = ticksFor(1'000'000);
  // A training step's shape: many launches, a few synchronizes.
  for (int I = 0; I < 300; ++I) {
    countCallback(keyOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), true, 0);
    countCallback(keyOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), false, 0);
  }
  countCallback(keyOf(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx), true, Ms);
  for (int I = 0; I < 7; ++I)
    countCallback(keyOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020), true, 2 * Ms);
  // Ids outside the domains' tables are ignored, not written out of bounds.
  countCallback(callbackKey(ApiDomain::Runtime, 0xfffe), true, Ms);  // beyond the table
  HandlerParts *Main = threadHandlerParts();
  ASSERT_NE(Main, nullptr);
  EXPECT_EQ(threadHandlerParts(), Main);  // one per thread
  Main->Calls = 5;
  Main->SlowCalls = 2;
  std::thread([] {
    HandlerParts *Other = threadHandlerParts();
    ASSERT_NE(Other, nullptr);
    Other->Calls = 3;
  }).join();
  countToggle(Toggle::LaunchesOn);
  countToggle(Toggle::LaunchesOff);
  countToggle(Toggle::LaunchesOn);
  countToggle(Toggle::KernelsOn);
  countActivityBuffer(120, Ms);
  countDrain(Ms);

  std::string T = selfStatsText(nameOf);
  EXPECT_NE(T.find("syncwatch stats: 308 callbacks"), std::string::npos) << T;
  EXPECT_NE(T.find("2 threads"), std::string::npos) << T;
  EXPECT_NE(T.find("recorded 8 calls"), std::string::npos) << T;
  EXPECT_NE(T.find("slow path 2 times"), std::string::npos) << T;
  EXPECT_NE(T.find("launch callbacks turned on 2 times, off 1 times; kernel tracing turned on 1 times"), std::string::npos) << T;
  EXPECT_NE(T.find("activity: 1 buffers, 120 records"), std::string::npos) << T;
  EXPECT_NE(T.find("drainer: 1 drains"), std::string::npos) << T;
  // Most frequent first; a synchronize's time is its own (14 ms over 7 calls).
  auto Launch = T.find("cudaLaunchKernel_v7000"), Sync = T.find("cudaStreamSynchronize_v3020"), Ex = T.find("cuLaunchKernelEx");
  ASSERT_NE(Launch, std::string::npos);
  ASSERT_NE(Sync, std::string::npos);
  ASSERT_NE(Ex, std::string::npos);
  EXPECT_LT(Launch, Sync);
  EXPECT_LT(Sync, Ex);
  EXPECT_NE(T.find("7 calls     14.0"), std::string::npos) << T;
}
