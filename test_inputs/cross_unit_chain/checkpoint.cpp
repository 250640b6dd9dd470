// Checkpointing: plain C++ compiled by the host compiler; it makes no CUDA call itself.
#include "pipeline.h"

#include <cstdio>

void save_and_trim(Stage &s) {
  std::printf("checkpoint: %d values\n", s.n);
  s.retire();
}

void trim_after_sync(Stage &s) {
  std::printf("checkpoint: %d values\n", s.n);
  s.retire();
}
