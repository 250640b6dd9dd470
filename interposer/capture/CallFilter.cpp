#include "CallFilter.h"

#include "syncwatch/catalogue.h"


#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <unordered_map>

namespace syncwatch::runtime {
namespace {

using StreamGetFlagsFn = int (*)(const void *, unsigned *);
using PointerGetAttributeFn = int (*)(void *, int, unsigned long long);
StreamGetFlagsFn StreamGetFlags = nullptr;
PointerGetAttributeFn PointerGetAttribute = nullptr;
constexpr int kPointerAttributeMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kMemoryTypeHost = 1;         // CU_MEMORYTYPE_HOST: pinned host memory

// Bumped whenever host memory is unpinned or freed: every thread's pinned cache is stale.
std::atomic<std::uint64_t> HostMemoryEpoch{0};

struct FilterCache {
  // Stream handle -> created non-blocking? (asked once per stream and thread)
  std::unordered_map<const void *, bool> NonBlocking;
  // Host pointers known to be pinned. Only positive answers are kept: memory that is
  // pageable now may be registered later, pinned memory stays pinned until released.
  std::unordered_map<const void *, bool> Pinned;
  std::uint64_t PinnedEpoch = 0;
};
thread_local FilterCache Cache;

enum class StreamClass { Legacy, Blocking, NonBlocking };

StreamClass classify(const void *S) {
  auto Handle = reinterpret_cast<std::uintptr_t>(S);
  if (Handle == 0 || Handle == 1)  // the NULL stream, cudaStreamLegacy
    return StreamClass::Legacy;
  if (Handle == 2 || !StreamGetFlags)  // cudaStreamPerThread: blocking towards the legacy stream
    return StreamClass::Blocking;
  auto It = Cache.NonBlocking.find(S);
  if (It == Cache.NonBlocking.end()) {
    unsigned Flags = 0;
    bool NB = StreamGetFlags(S, &Flags) == 0 && (Flags & kNonBlockingStreamFlag);
    It = Cache.NonBlocking.emplace(S, NB).first;
  }
  return It->second ? StreamClass::NonBlocking : StreamClass::Blocking;
}

bool nonBlocking(const void *S) { return classify(S) == StreamClass::NonBlocking; }

// Work on a blocking stream (per-thread default streams included) has been issued: from
// now on legacy-stream launches can be held by it and are recorded.
std::atomic<bool> BlockingWorkSeen{false};

bool pinned(const void *P) {
  if (!PointerGetAttribute || !P)
    return false;
  std::uint64_t Epoch = HostMemoryEpoch.load(std::memory_order_acquire);
  if (Cache.PinnedEpoch != Epoch || Cache.Pinned.size() > 4096) {
    Cache.Pinned.clear();
    Cache.PinnedEpoch = Epoch;
  }
  if (Cache.Pinned.count(P))
    return true;
  unsigned Type = 0;
  bool Pinned = PointerGetAttribute(&Type, kPointerAttributeMemoryType, reinterpret_cast<unsigned long long>(P)) == 0 &&
                Type == kMemoryTypeHost;
  if (Pinned)
    Cache.Pinned.emplace(P, true);
  return Pinned;
}

// The stream a launch goes to (runtime or driver API); false when the call is no launch
// syncwatch can read.
bool launchStream(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Params, const void **Stream) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (Id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      *Stream = static_cast<const cudaLaunchKernel_v7000_params *>(Params)->stream;
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto *P = static_cast<const cudaLaunchKernelExC_v11060_params *>(Params);
      if (!P->config)
        return false;
      *Stream = P->config->stream;
      return true;
    }
    default:
      return false;
    }
  }
  if (Domain == CUPTI_CB_DOMAIN_DRIVER_API &&
      (Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || Id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)) {
    *Stream = static_cast<const cuLaunchKernel_params *>(Params)->hStream;
    return true;
  }
  return false;
}

// A launch matters only if its kernel could be held by another stream's work:
//  - onto a non-blocking stream: never;
//  - onto the legacy stream: once work has gone to a blocking stream (PyTorch, which
//    launches everything onto the legacy stream and creates no blocking stream of its own
//    to work on, pays for none of its launches);
//  - onto a blocking stream: always (rare, and what the blocking-stream rule is about).
// Kernel *tracing* (Capture.cpp) is decided separately and earlier, so that a kernel that
// later holds a recorded launch has its activity record.
bool launchCannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const void *Params, LaunchKind &Kind) {
  const void *S = nullptr;
  if (!launchStream(Domain, Id, Params, &S))
    return false;
  switch (classify(S)) {
  case StreamClass::NonBlocking:
    Kind = LaunchKind::NonBlocking;
    return true;
  case StreamClass::Blocking:
    Kind = LaunchKind::Blocking;
    BlockingWorkSeen.store(true, std::memory_order_relaxed);
    return false;
  case StreamClass::Legacy:
    Kind = LaunchKind::Legacy;
    return !BlockingWorkSeen.load(std::memory_order_relaxed);
  }
  return false;
}

bool copyCannotMatter(CUpti_CallbackId Id, const void *Params) {
  if (Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 && Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000)
    return false;
  const auto *P = static_cast<const cudaMemcpyAsync_v3020_params *>(Params);
  if (!P || !nonBlocking(P->stream))
    return false;
  if (P->kind == cudaMemcpyHostToDevice)
    return pinned(P->src);
  if (P->kind == cudaMemcpyDeviceToHost)
    return pinned(P->dst);
  return false;  // cudaMemcpyDefault and the rest: judged by their activity record
}

} // namespace

void bindDriver(void *Driver) {
  StreamGetFlags = reinterpret_cast<StreamGetFlagsFn>(dlsym(Driver ? Driver : RTLD_DEFAULT, "cuStreamGetFlags"));
  PointerGetAttribute =
      reinterpret_cast<PointerGetAttributeFn>(dlsym(Driver ? Driver : RTLD_DEFAULT, "cuPointerGetAttribute"));
}

bool cannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb, LaunchKind &Kind) {
  Kind = LaunchKind::NotALaunch;
  if (!Cb->functionParams)
    return false;
  if (launchCannotMatter(Domain, Id, Cb->functionParams, Kind))
    return true;
  return Domain == CUPTI_CB_DOMAIN_RUNTIME_API && copyCannotMatter(Id, Cb->functionParams);
}

void hostMemoryReleased() { HostMemoryEpoch.fetch_add(1, std::memory_order_acq_rel); }

} // namespace syncwatch::runtime
