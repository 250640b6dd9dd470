// Decides, at a call's entry, whether it can matter to any rule. A call that cannot is not
// recorded at all - no stack, no timestamps, no lock - which is what keeps launch-bound
// programs near the floor of a bare CUPTI subscriber (bench/runtime_overhead.sh).
#pragma once

#include <cupti.h>

#include <string_view>

namespace syncwatch::runtime {

// What syncwatch knows about one enabled callback id, from the catalogue.
struct CallbackInfo {
  std::string_view Name;           // "" for ids syncwatch does not enable
  bool Launch = false;             // a kernel launch
  bool ReleasesHostMemory = false; // cudaFreeHost, cudaHostUnregister...: pinned may become pageable
  bool CanWait = false;            // the truth table did not see it return at once
};

// Looks up the two driver entry points it needs (not linked: libsyncwatch.so must load
// where there is no driver). Without them nothing is filtered.
void bindDriver(void *DriverHandle);

// What a launch syncwatch could classify went to (Unclassified: a launch API whose stream
// it cannot read, e.g. cuLaunchKernelEx or a graph launch).
enum class LaunchKind { NotALaunch, NonBlocking, Legacy, Blocking };

// True when the call cannot matter to any rule, so it is not recorded at all:
//  - a launch onto a stream created non-blocking;
//  - a launch onto the legacy stream while no work has gone to a blocking stream (nothing
//    exists that could hold it);
//  - a cudaMemcpyAsync between device memory and PINNED host memory on a non-blocking
//    stream (a pageable one is exactly what the pageable-async-copy rule is about).
// Kind tells the caller what a launch went to, whether or not it is recorded.
bool cannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb, LaunchKind &Kind);

// Called at the entry of a call that releases host memory: forget what was pinned.
void hostMemoryReleased();

} // namespace syncwatch::runtime
