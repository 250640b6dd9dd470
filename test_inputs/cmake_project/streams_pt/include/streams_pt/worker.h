#pragma once

#include <cstddef>

namespace streams_pt {

// Runs `threads` host threads, each scaling its own chunk on its own default stream (the
// library is built with --default-stream per-thread). Returns the sum of the results.
double scaleInThreads(int threads, std::size_t n_per_thread, float factor);

}  // namespace streams_pt
