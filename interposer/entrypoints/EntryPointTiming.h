// Whether libsyncwatch.so's own definitions of the blocking CUDA entry points time their
// calls (HostWaitEntryPoints.cpp): true once another tool was found holding CUPTI
// (cupti/Subscriber.cpp). A header of its own: the entry points' file may not include CUDA's
// headers, whose declarations of the same names differ in their types.
#pragma once

#include <atomic>

namespace syncwatch::runtime {

// Set once, before any timed call (cupti/Subscriber.cpp's startWithoutCupti). Read inline:
// every forwarded blocking call reads it, and a call into another file was a frame more.
extern std::atomic<bool> EntryPointsTimed;
inline bool entryPointsTimed() { return EntryPointsTimed.load(std::memory_order_relaxed); }

} // namespace syncwatch::runtime
