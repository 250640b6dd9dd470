// The other edge of the helpers header: only its benchmark template is used, instantiated
// with a lambda that launches on the default stream, and the timer it starts runs on the
// stream the caller passes (a pool's stream, from another unit). The instantiation runs from
// here, so its stream counts, and the synchronous copy after the launches warns.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#include "include/stream_helpers.cuh"

cudaStream_t timing_stream();

int main() {
  const int n = 1 << 20;
  std::vector<float> hy(n, 2.f);
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  run_benchmark([&] { axpy<<<(n + 255) / 256, 256>>>(2.f, x, y, n); }, 10, timing_stream());  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  std::printf("%f\n", hy[0]);
  return 0;
}
