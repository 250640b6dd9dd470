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
  bool CreatesStream = false;      // a new stream may reuse a destroyed one's handle
  bool CanWait = false;            // the truth table did not see it return at once
};

// Looks up the two driver entry points it needs (not linked: libsyncwatch.so must load
// where there is no driver). Without them nothing is filtered.
void bindDriver(void *DriverHandle);

// True when the call can neither make the host wait nor take part in a serialization:
//  - a launch onto a stream created non-blocking, of the default priority (a launch onto a
//    high-priority stream is kept for the priority-inversion rule);
//  - a cudaMemcpyAsync between device memory and PINNED host memory on such a stream
//    (a pageable one is exactly what the pageable-async-copy rule is about).
bool cannotMatter(CUpti_CallbackDomain Domain, CUpti_CallbackId Id, const CUpti_CallbackData *Cb);

// Called at the entry of a call that releases host memory: forget what was pinned.
void hostMemoryReleased();
// Called at the entry of a call that creates a stream: forget what streams were.
void streamCreated();

} // namespace syncwatch::runtime
