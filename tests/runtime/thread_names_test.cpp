// The `threads` evidence names who paid: a thread that made CUDA calls and ended before the
// process did (a checkpoint writer joined before exit) keeps the name it had, remembered when
// its call ring is given back; a live thread is named from /proc.
#include "../../interposer/recorder/CallRing.h"
#include "../../interposer/recorder/ThreadNames.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace syncwatch::runtime;

namespace {
std::uint64_t myTid() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }
} // namespace

TEST(ThreadNames, AThreadThatEndedKeepsItsName) {
  std::uint64_t Tid = 0;
  std::thread Writer([&] {
    pthread_setname_np(pthread_self(), "ckpt_writer");
    ASSERT_NE(threadRing(), nullptr);  // its first recorded call
    Tid = myTid();
  });
  Writer.join();  // its tid is gone from /proc/self/task now
  auto Names = threadNames();
  ASSERT_TRUE(Names.count(Tid)) << "the ended thread is not named";
  EXPECT_EQ(Names[Tid], "ckpt_writer");
}

TEST(ThreadNames, AThreadWithoutCallsIsNotRemembered) {
  std::uint64_t Tid = 0;
  std::thread Idle([&] {
    pthread_setname_np(pthread_self(), "idle_helper");
    Tid = myTid();
  });
  Idle.join();
  EXPECT_FALSE(threadNames().count(Tid));
}

TEST(ThreadNames, LiveThreadsAreNamedFromProc) {
  pthread_setname_np(pthread_self(), "trainer_main");
  auto Names = threadNames();
  ASSERT_TRUE(Names.count(myTid()));
  EXPECT_EQ(Names[myTid()], "trainer_main");
}
