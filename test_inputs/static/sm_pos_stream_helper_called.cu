// The look-alike that must still warn: the same helpers header as
// sm_neg_unused_stream_helpers.cu, but this unit reaches it. The inline launcher is called
// through a function of the program's own, and the timer is started on the work stream by
// the header's benchmark template, which this unit instantiates (from a lambda). That stream
// (handed out by the program's stream pool, in another unit) runs beside the legacy one, so
// a synchronous copy on the legacy stream costs concurrency.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#include "include/stream_helpers.cuh"

cudaStream_t work_stream();  // the stream pool, in another unit

static void step(float *x, float *y, int n) { launch_axpy(0.5f, x, y, n, work_stream()); }

int main() {
  const int n = 1 << 20;
  std::vector<float> hy(n, 2.f);
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  step(x, y, n);
  float ms = run_benchmark([] {}, 10, work_stream());
  CUDA_CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  std::printf("%f %f\n", hy[0], ms);
  return 0;
}
