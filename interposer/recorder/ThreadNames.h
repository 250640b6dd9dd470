#pragma once
// The names of the threads that made CUDA calls, for the `threads` evidence ("ckpt_writer
// (tid 9001)"). A thread still alive at exit is named from /proc/self/task; one that ended
// earlier (a checkpoint writer joined before exit, a worker pool shut down) is named by what
// it was called when it ended, remembered by its call ring's release.
#include <cstdint>
#include <map>
#include <string>

namespace syncwatch::runtime {

// Called on the ending thread (the call ring's pthread-key destructor): keeps its name.
void rememberEndingThread();

// Every thread of the process that is alive now or was remembered when it ended, by tid; a
// live thread's name wins (a tid the kernel gave again).
std::map<std::uint64_t, std::string> threadNames();

} // namespace syncwatch::runtime
