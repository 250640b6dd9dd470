#include "CallRing.h"
#include "ThreadNames.h"

#include <pthread.h>

namespace syncwatch::runtime {
namespace call_ring_detail {
std::atomic<CallRing *> Rings[kMaxRings];
std::atomic<std::uint32_t> RingCount{0};
} // namespace call_ring_detail

namespace {
using namespace call_ring_detail;

// A thread's exit gives its ring back (its records stay until drained) and keeps the
// thread's name for the report; a pthread key's destructor does it, since thread_local
// destructors of a preloaded library may run after the library's own state is gone.
pthread_key_t RingKey;
pthread_once_t KeyOnce = PTHREAD_ONCE_INIT;
void releaseRing(void *R) {
  rememberEndingThread();
  static_cast<CallRing *>(R)->Owned.store(false, std::memory_order_release);
}
void makeKey() { pthread_key_create(&RingKey, releaseRing); }

thread_local CallRing *Mine = nullptr;
thread_local bool NoRing = false;
} // namespace

CallRing *threadRing() {
  if (Mine || NoRing)
    return Mine;
  pthread_once(&KeyOnce, makeKey);
  std::uint32_t N = RingCount.load(std::memory_order_acquire);
  for (std::uint32_t I = 0; I < N && I < kMaxRings && !Mine; ++I) {
    CallRing *R = Rings[I].load(std::memory_order_acquire);
    bool Free = false;
    if (R && R->Owned.compare_exchange_strong(Free, true))
      Mine = R;
  }
  if (!Mine) {
    std::uint32_t I = RingCount.fetch_add(1);
    if (I >= kMaxRings) {
      NoRing = true;
      return nullptr;
    }
    auto *R = new CallRing;
    R->Owned.store(true);
    Rings[I].store(R, std::memory_order_release);
    Mine = R;
  }
  pthread_setspecific(RingKey, Mine);
  return Mine;
}

} // namespace syncwatch::runtime
