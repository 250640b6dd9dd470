// A shared helpers header (CUTLASS's examples/common/helper.h, any project's utils.cuh) holds
// stream-taking code that this program never calls: a timer started on a caller's stream, an
// inline launcher, a static prefetch helper. None of it runs from this unit, so it is no sign
// that the program uses other streams: the synchronous copies lose nothing (no sync-memcpy
// finding) and the stream-less launch is a note. A unit that does call them compiles its own
// copy and is judged there (from the field test on NVIDIA/cutlass's basic_gemm).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#include "include/stream_helpers.cuh"  // axpy, CUDA_CHECK; GpuTimer, launch_axpy, prefetch, run_benchmark: none called here

int main() {
  const int n = 1 << 20;
  std::vector<float> hx(n, 1.f), hy(n, 2.f);
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GpuTimer timer;  // constructed, never started
  axpy<<<(n + 255) / 256, 256>>>(2.f, x, y, n);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("%f\n", hy[0]);
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
