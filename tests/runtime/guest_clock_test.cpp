// A profiler's own clock for CUPTI's times (interposer/cupti/GuestClock.h), with the clocks the
// H100 run showed (tests/gpu/profiler_steps.py under torch 2.11): CUPTI's own, nanoseconds since
// the epoch, and Kineto's steady clock, nanoseconds since boot. After Kineto registers its
// source, cuptiGetTimestamp reads and new activity records are in the steady clock; syncwatch's
// times stay in CUPTI's own, records made before the switch and delivered after included.
#include "../../interposer/cupti/GuestClock.h"

#include <gtest/gtest.h>

using namespace syncwatch::runtime;

namespace {
constexpr std::uint64_t Epoch = 1796558954559888871ull;  // CUPTI's own clock at the switch
constexpr std::uint64_t Boot = 134082661151ull;          // Kineto's steady clock at the switch
constexpr std::uint64_t ms = 1000000;
} // namespace

TEST(GuestClock, NothingChangesBeforeAProfilerBringsItsClock) {
  GuestClock G;
  EXPECT_FALSE(G.active());
  EXPECT_EQ(G.ownNow(Epoch), Epoch);
  EXPECT_EQ(G.ownRecordTime(Epoch - 5 * ms, Epoch), Epoch - 5 * ms);
}

TEST(GuestClock, KinetosSteadyClockIsPutBackIntoCuptisOwn) {
  GuestClock G;
  G.switched(Epoch, Boot);
  ASSERT_TRUE(G.active());
  // cuptiGetTimestamp now reads the steady clock: 3 ms later is 3 ms later in syncwatch's.
  EXPECT_EQ(G.ownNow(Boot + 3 * ms), Epoch + 3 * ms);
  // A record made after the switch (steady clock) and one made before it, delivered in the
  // same buffer (CUPTI's own clock): both land where they ran.
  EXPECT_EQ(G.ownRecordTime(Boot + 2 * ms, Epoch + 10 * ms), Epoch + 2 * ms);
  EXPECT_EQ(G.ownRecordTime(Epoch - 40 * ms, Epoch + 10 * ms), Epoch - 40 * ms);
  EXPECT_EQ(G.ownRecordTime(0, Epoch + 10 * ms), 0u);  // no time (a kernel before tracing)
  // A reading taken in CUPTI's own clock just before the switch took effect stays as it is.
  EXPECT_EQ(G.ownNow(Epoch + 4 * ms), Epoch + 4 * ms);
  // The profiler registers its source again (a second trace): the same offset.
  G.switched(G.ownNow(Boot + 20 * ms), Boot + 20 * ms);
  EXPECT_EQ(G.ownNow(Boot + 30 * ms), Epoch + 30 * ms);
}

TEST(GuestClock, CloseClocksAreTakenAsTheGuestsAfterTheSwitch) {
  GuestClock G;
  G.switched(Epoch, Epoch - 2 * ms);  // a profiler's clock 2 ms behind CUPTI's
  EXPECT_EQ(G.ownNow(Epoch + 1 * ms), Epoch + 3 * ms);
  EXPECT_EQ(G.ownRecordTime(Epoch + 1 * ms, Epoch + 5 * ms), Epoch + 3 * ms);
}
