// A library's device operators take `cudaStream_t stream = nullptr` (CUTLASS's
// gemm::device::Gemm::operator(), a helper written after them), and this program never
// passes one: all its work is on the legacy stream, so the synchronous copies lose no
// concurrency (no sync-memcpy finding), and the stream-less launch is a note, not a warning
// (from the field test on NVIDIA/cutlass's examples: bench/field/repro/fp_defaulted_stream_param.cu).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK_CUDA(call)                                                         \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) std::printf("%s\n", cudaGetErrorString(e_));          \
  } while (0)

template <typename T>
__global__ void scale_kernel(T *data, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= alpha;
}

namespace device {
// The operator shape of CUTLASS's device-level API: arguments, then an optional stream.
template <typename T>
class Scale {
 public:
  struct Arguments { T *data; T alpha; int n; };
  cudaError_t operator()(Arguments const &args, cudaStream_t stream = nullptr) {
    scale_kernel<T><<<(args.n + 255) / 256, 256, 0, stream>>>(args.data, args.alpha, args.n);
    return cudaGetLastError();
  }
  cudaError_t run(Arguments const &args, cudaStream_t stream = 0) { return (*this)(args, stream); }
};
}  // namespace device

// A primary template and the partial specialization that runs instead (CUTLASS's Gemm and
// its ColumnMajor form, which calls the primary's initialize() on a transposed problem): the
// primary's own operator() is never called, so what it forwards decides nothing.
template <typename T, bool Transposed>
struct Gemm {
  cudaError_t initialize(T *workspace, int n, cudaStream_t stream = nullptr) {
    return cudaMemsetAsync(workspace, 0, n * sizeof(T), stream);
  }
  cudaError_t operator()(T *workspace, int n, cudaStream_t stream = nullptr) { return initialize(workspace, n, stream); }
};
template <typename T>
struct Gemm<T, true> {
  Gemm<T, false> underlying;
  cudaError_t operator()(T *workspace, int n, cudaStream_t stream = nullptr) {
    return underlying.initialize(workspace, n, stream);
  }
};

// A timer that keeps the stream it is started on (CUTLASS's examples/common/helper.h GpuTimer):
// only ever 0 or a defaulted parameter, so the legacy stream.
struct GpuTimer {
  cudaStream_t stream_ = 0;
  cudaEvent_t start_, stop_;
  GpuTimer() : stream_(0) { cudaEventCreate(&start_); cudaEventCreate(&stop_); }
  void start(cudaStream_t s = 0) { stream_ = s; cudaEventRecord(start_, stream_); }
  void stop() { cudaEventRecord(stop_, stream_); }
};

// A free helper with the same default, called with none and with an explicit null.
void fill(float *d, int n, cudaStream_t stream = cudaStreamLegacy) {
  CHECK_CUDA(cudaMemsetAsync(d, 0, n * sizeof(float), stream));
}

int main() {
  const int n = 1 << 16;
  std::vector<float> host(n, 1.f);
  float *d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(float)));
  fill(d, n);
  fill(d, n, nullptr);
  CHECK_CUDA(cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  device::Scale<float> op;
  Gemm<float, true> gemm;
  CHECK_CUDA(gemm(d, n));
  GpuTimer timer;
  timer.start();
  CHECK_CUDA(op({d, 2.f, n}));
  timer.stop();
  CHECK_CUDA(op.run({d, 3.f, n}));
  auto twice = [&](float a) { return op({d, a, n}); };
  CHECK_CUDA(twice(0.5f));
  scale_kernel<float><<<(n + 255) / 256, 256>>>(d, 1.f, n);  // expect: note syncwatch-default-stream
  CHECK_CUDA(cudaMemcpy(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("%f\n", host[0]);
  CHECK_CUDA(cudaFree(d));
  return 0;
}
