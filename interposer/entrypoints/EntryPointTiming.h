// Whether libsyncwatch.so's own definitions of the blocking CUDA entry points time their
// calls (HostWaitEntryPoints.cpp): true once another tool was found holding CUPTI
// (cupti/Subscriber.cpp). A header of its own: the entry points' file may not include CUDA's
// headers, whose declarations of the same names differ in their types.
#pragma once

namespace syncwatch::runtime {

bool entryPointsTimed();

} // namespace syncwatch::runtime
