// The stages: they hand their buffers back to memory.cu.
#include "pipeline.h"

void Stage::retire() {
  device_release(activations);
  activations = nullptr;
}

void Stage::retire_all() {
  cudaDeviceSynchronize();  // every stream drained: what follows frees an idle device
  device_release(activations);
  activations = nullptr;
}

void end_of_epoch(Stage &s) {
  device_release_checked(s.activations);
  s.activations = nullptr;
}
