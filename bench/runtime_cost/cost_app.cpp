// The "application": loops of CUDA calls in the mix a training loop makes, through the fake
// runtime, each call from its own line (its own call site). Measures syncwatch's own cost
// per call as the difference between rounds with the handlers bound and rounds without,
// interleaved, on the calling thread's CPU clock (so threads sharing 2 cores do not count
// each other's time).
#include "../../interposer/recorder/ApiHandler.h"

#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <vector>

extern "C" {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);
void swcost_bind(Handler, Handler);
void swcost_start(Handler *, Handler *);
void swcost_measure_parts(syncwatch::runtime::HandlerParts *);
int swcostLaunchKernel(const void *, cudaStream_t);
int swcostMemcpyAsync(void *, const void *, size_t, cudaStream_t);
int swcostEventRecord(cudaEvent_t, cudaStream_t);
int swcostStreamSynchronize(cudaStream_t);
}

namespace {
Handler Enter = nullptr, Exit = nullptr;
const auto Stream = reinterpret_cast<cudaStream_t>(0x1000);
// A non-blocking stream (the fake driver says so): launches there are filtered, only counted.
const auto SideStream = reinterpret_cast<cudaStream_t>(0x3000);
const auto Event = reinterpret_cast<cudaEvent_t>(0x2000);
char HostBuf[64], DevBuf[64];
void kernelA() {}
void kernelB() {}
void kernelC() {}

double threadSeconds() {
  timespec T;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return static_cast<double>(T.tv_sec) + 1e-9 * static_cast<double>(T.tv_nsec);
}

// Kinds: 0 launch, 1 async copy, 2 event record, 3 stream sync, 4 the mix (per call),
// 5 a launch the filter does not record (a non-blocking stream: counted at its site only).
// Returns the calls made.
__attribute__((noinline)) long loop(int Kind, int Iterations) {
  long Calls = 0;
  for (int I = 0; I < Iterations; ++I) {
    switch (Kind) {
    case 0:
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelA), Stream);
      ++Calls;
      break;
    case 1:
      swcostMemcpyAsync(DevBuf, HostBuf, sizeof HostBuf, Stream);
      ++Calls;
      break;
    case 2:
      swcostEventRecord(Event, Stream);
      ++Calls;
      break;
    case 3:
      swcostStreamSynchronize(Stream);
      ++Calls;
      break;
    case 5:
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelB), SideStream);
      ++Calls;
      break;
    default:  // a training step's shape: launches from three lines, a copy, a record, a sync
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelA), Stream);
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelB), Stream);
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelC), Stream);
      swcostLaunchKernel(reinterpret_cast<const void *>(&kernelA), Stream);
      swcostMemcpyAsync(DevBuf, HostBuf, sizeof HostBuf, Stream);
      swcostEventRecord(Event, Stream);
      swcostStreamSynchronize(Stream);
      Calls += 7;
      break;
    }
  }
  return Calls;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}
// The unbound rounds' median of this thread's last swcost_own_ns: what the fake runtime and
// the loop cost without syncwatch (the scaling mode prints it beside syncwatch's own cost, so
// that a machine whose every thread slows down is told from a line that syncwatch shares).
thread_local double LastOffNs = 0;
} // namespace

extern "C" {
// syncwatch's own ns per call for one kind: median of Rounds bound rounds minus median of
// Rounds unbound ones, interleaved. Parts (optional) receives the bound rounds' breakdown.
// Phase (optional) is called before every timed loop: threads running this at once wait
// for each other there, so that all of them run bound, or all unbound, at any time.
__attribute__((visibility("default"))) double swcost_own_ns(int Kind, int Iterations, int Rounds,
                                                            syncwatch::runtime::HandlerParts *Parts,
                                                            void (*Phase)()) {
  if (!Enter)
    swcost_start(&Enter, &Exit);
  swcost_bind(Enter, Exit);
  loop(Kind, 64);  // the sites' first occurrences: the slow path, not measured
  std::vector<double> On, Off;
  for (int R = 0; R < Rounds; ++R) {
    if (Phase)
      Phase();
    swcost_bind(nullptr, nullptr);
    double T0 = threadSeconds();
    long N = loop(Kind, Iterations);
    Off.push_back((threadSeconds() - T0) * 1e9 / static_cast<double>(N));
    if (Phase)
      Phase();
    swcost_bind(Enter, Exit);
    swcost_measure_parts(Parts && R == 0 ? Parts : nullptr);
    T0 = threadSeconds();
    N = loop(Kind, Iterations);
    double Ns = (threadSeconds() - T0) * 1e9 / static_cast<double>(N);
    swcost_measure_parts(nullptr);
    if (!(Parts && R == 0))  // the round with part timings pays for their clock reads
      On.push_back(Ns);
  }
  swcost_bind(nullptr, nullptr);
  LastOffNs = median(Off);
  if (On.empty())
    return 0;
  return median(On) - median(Off);
}

__attribute__((visibility("default"))) double swcost_last_off_ns() { return LastOffNs; }
}
