// A project's shared helpers header (CUTLASS's examples/common/helper.h, any utils.cuh):
// for sm_neg_unused_stream_helpers.cu, which includes it and calls none of its stream
// helpers, and for the look-alikes that do (sm_pos_stream_helper_called.cu,
// sm_pos_timer_template_used.cu).
#pragma once
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(expr)                                                             \
  do {                                                                               \
    cudaError_t err_ = (expr);                                                       \
    if (err_ != cudaSuccess) std::fprintf(stderr, "%s\n", cudaGetErrorString(err_)); \
  } while (0)

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

struct GpuTimer {
  cudaStream_t stream_id_;
  cudaEvent_t start_, stop_;
  GpuTimer() : stream_id_(0) {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~GpuTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start(cudaStream_t stream_id) {  // never called here
    stream_id_ = stream_id;
    cudaEventRecord(start_, stream_id_);
  }
  void stop() { cudaEventRecord(stop_, stream_id_); }  // never called here
};

inline void launch_axpy(float a, const float *x, float *y, int n, cudaStream_t stream) {
  axpy<<<(n + 255) / 256, 256, 0, stream>>>(a, x, y, n);
}

static void prefetch(const float *p, size_t bytes, cudaStream_t stream) {
  auto go = [&] { CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, stream)); };
  go();
}
// A benchmark driver that times a callable on the caller's stream: a template this program
// never instantiates, so the timer's start() it names is still never called.
template <class Func>
float run_benchmark(Func func, int iterations, cudaStream_t stream) {
  GpuTimer timer;
  timer.start(stream);
  for (int i = 0; i < iterations; ++i) func();
  timer.stop();
  return 0.f;
}
