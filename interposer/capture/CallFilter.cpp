#include "CallFilter.h"

#include "syncwatch/catalogue.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace syncwatch::runtime {
namespace {

using StreamGetFlagsFn = int (*)(const void *, unsigned *);
using StreamGetPriorityFn = int (*)(const void *, int *);
using PointerGetAttributeFn = int (*)(void *, int, unsigned long long);
StreamGetFlagsFn StreamGetFlags = nullptr;
StreamGetPriorityFn StreamGetPriority = nullptr;
PointerGetAttributeFn PointerGetAttribute = nullptr;
constexpr int kPointerAttributeMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kMemoryTypeHost = 1;         // CU_MEMORYTYPE_HOST: pinned host memory

// Bumped whenever host memory is unpinned or freed (every thread's pinned cache is stale)
// and whenever a stream is created (a destroyed stream's handle may come back with other
// flags): the per-thread caches below are then dropped.
std::atomic<std::uint64_t> HostMemoryEpoch{0}, StreamEpoch{0};

struct FilterCache {
  // Stream handle -> what the driver says of it, asked once per stream and thread.
  struct StreamFacts {
    bool NonBlocking = false;
    bool HighPriority = false;  // a launch there can be held behind lower-priority work
  };
  std::unordered_map<const void *, StreamFacts> Streams;
  std::uint64_t StreamsEpoch = 0;
  // Host pointers known to be pinned. Only positive answers are kept: memory that is
  // pageable now may be registered later, pinned memory stays pinned until released.
  std::unordered_set<const void *> Pinned;
  std::uint64_t PinnedEpoch = 0;
};
thread_local FilterCache Cache;

const FilterCache::StreamFacts &factsOf(const void *S) {
  std::uint64_t Epoch = StreamEpoch.load(std::memory_order_acquire);
  if (Cache.StreamsEpoch != Epoch) {
    Cache.Streams.clear();
    Cache.StreamsEpoch = Epoch;
  }
  auto It = Cache.Streams.find(S);
  if (It == Cache.Streams.end()) {
    FilterCache::StreamFacts F;
    unsigned Flags = 0;
    int Priority = 0;
    F.NonBlocking = StreamGetFlags && StreamGetFlags(S, &Flags) == 0 && (Flags & kNonBlockingStreamFlag);
    F.HighPriority = StreamGetPriority && StreamGetPriority(S, &Priority) == 0 && Priority < 0;
    It = Cache.Streams.emplace(S, F).first;
  }
  return It->second;
}

// 0, cudaStreamLegacy and cudaStreamPerThread are never non-blocking: they can serialize.
bool isHandle(const void *S) { return reinterpret_cast<std::uintptr_t>(S) > 2; }

bool nonBlocking(const void *S) { return isHandle(S) && factsOf(S).NonBlocking; }

bool launchSkippable(const void *S) {
  if (!isHandle(S))
    return false;
  const FilterCache::StreamFacts &F = factsOf(S);
  return F.NonBlocking && !F.HighPriority;
}

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
    Cache.Pinned.insert(P);
  return Pinned;
}

bool launchCannotMatter(CUpti_CallbackId Id, const void *Params) {
  switch (Id) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
    const auto *P = static_cast<const cudaLaunchKernel_v7000_params *>(Params);
    return P && launchSkippable(P->stream);
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
    const auto *P = static_cast<const cudaLaunchKernelExC_v11060_params *>(Params);
    return P && P->config && launchSkippable(P->config->stream);
  }
  default:
    return false;
  }
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
  StreamGetPriority = reinterpret_cast<StreamGetPriorityFn>(dlsym(Driver ? Driver : RTLD_DEFAULT, "cuStreamGetPriority"));
  PointerGetAttribute =
      reinterpret_cast<PointerGetAttributeFn>(dlsym(Driver ? Driver : RTLD_DEFAULT, "cuPointerGetAttribute"));
}

bool cannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb) {
  if (Domain != CUPTI_CB_DOMAIN_RUNTIME_API || !Cb->functionParams)
    return false;
  return launchCannotMatter(Id, Cb->functionParams) || copyCannotMatter(Id, Cb->functionParams);
}

void hostMemoryReleased() { HostMemoryEpoch.fetch_add(1, std::memory_order_acq_rel); }

void streamCreated() { StreamEpoch.fetch_add(1, std::memory_order_acq_rel); }

} // namespace syncwatch::runtime
