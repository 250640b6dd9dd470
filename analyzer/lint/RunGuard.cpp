#include "RunGuard.h"

#include "../unit/PreludePch.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <vector>

namespace syncwatch {
namespace {

sigset_t Stopping;

void *takeSignals(void *) {
  int Sig = 0;
  if (sigwait(&Stopping, &Sig) != 0)
    return nullptr;
  removePreludeDirectories();
  // Then the signal's own effect: the default action, on this thread.
  signal(Sig, SIG_DFL);
  sigset_t One;
  sigemptyset(&One);
  sigaddset(&One, Sig);
  pthread_sigmask(SIG_UNBLOCK, &One, nullptr);
  raise(Sig);
  return nullptr;
}

struct Gate {
  std::mutex M;
  std::condition_variable Open;
  bool Released = false;
};

void *waitAtGate(void *G) {
  auto *Gt = static_cast<Gate *>(G);
  std::unique_lock<std::mutex> L(Gt->M);
  Gt->Open.wait(L, [&] { return Gt->Released; });
  return nullptr;
}

} // namespace

void cleanUpOnSignals() {
  sigemptyset(&Stopping);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&Stopping, Sig);
  sigset_t Old;
  pthread_sigmask(SIG_BLOCK, &Stopping, &Old);
  pthread_t T;
  if (pthread_create(&T, nullptr, takeSignals, nullptr) != 0) {
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);  // no taker: the signals act as before
    return;
  }
  pthread_detach(T);
}

unsigned threadsThatCanStart(unsigned Wanted) {
  Gate G;
  std::vector<pthread_t> Started;
  pthread_attr_t A;
  pthread_attr_init(&A);
  pthread_attr_setstacksize(&A, 64 * 1024);  // the probe's threads only wait
  for (unsigned I = 0; I < Wanted; ++I) {
    pthread_t T;
    if (pthread_create(&T, &A, waitAtGate, &G) != 0)
      break;
    Started.push_back(T);
  }
  pthread_attr_destroy(&A);
  {
    std::lock_guard<std::mutex> L(G.M);
    G.Released = true;
  }
  G.Open.notify_all();
  for (pthread_t T : Started)
    pthread_join(T, nullptr);
  return static_cast<unsigned>(Started.size());
}

} // namespace syncwatch
