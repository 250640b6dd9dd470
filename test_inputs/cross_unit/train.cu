// The training loop. The stages are in ops.cu; this file sees only ops.h.
#include "ops.h"

#include <cstdlib>

int main() {
  const int n = 1 << 20;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  float *dev = nullptr, *host = nullptr;
  cudaMalloc(&dev, n * sizeof(float));
  cudaMallocHost(&host, n * sizeof(float));

  // finish() drains the stream: the copy after it waits for nothing (silent).
  scale_async(dev, n, stream);
  finish(stream);
  cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost);

  for (int step = 0; step < 100; ++step) {
    scale_async(dev, n, stream);
    log_step(step);                  // host-side only: silent
    fetch(host, dev, n, stream);     // expect: syncwatch-sync-in-loop (waits in ops.cu, every iteration)
  }

  // scale_async() leaves its kernel running on `stream`: the device-wide sync inside
  // release() waits for it (reported in ops.cu, where the cudaFree is).
  scale_async(dev, n, stream);
  release(dev);

  cudaFreeHost(host);
  cudaStreamDestroy(stream);
  return 0;
}
