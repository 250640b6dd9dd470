// The application: resizes a batch, scales in worker threads, reduces on the device.
#include "imaging/resize.h"
#include "reduce/reductions.h"
#include "streams_pt/worker.h"

#include "common/check.h"

#include <cstdio>

int main() {
  std::vector<imaging::Image> batch(4);
  for (imaging::Image &im : batch) {
    im.width = 640;
    im.height = 480;
    im.pixels.assign(size_t(im.width) * im.height, 128);
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));  // expect: warning syncwatch-blocking-stream
  const double mean = imaging::resizeBatch(batch, 320, 240, stream);

  float *d = nullptr;
  const size_t n = 1 << 20;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d, 0, n * sizeof(float)));
  const double total = reduce::sums(d, n, stream);
  const double scaled = streams_pt::scaleInThreads(4, 1 << 16, 0.5f);
  std::printf("mean %.3f total %.3f scaled %.3f\n", mean, total, scaled);
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
