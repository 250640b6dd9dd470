// RAII device buffers: the destructor frees with cudaFree, and it runs where no call is
// written - at the end of the block, or at `delete`. A kernel still running there makes the
// free a device-wide wait. Reported at the cudaFree in the destructor, with a note at the
// block's end and at the kernel. (One caller leaves work running: which of several callers a
// note names is not fixed across processes - see is_pos_raii_delete.cu for the delete.)
#include <cuda_runtime.h>

#include <cstdio>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) std::fprintf(stderr, "%s\n", cudaGetErrorString(err_));          \
  } while (0)

template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T))); }
  ~DeviceBuffer() { CUDA_CHECK(cudaFree(data_)); }  // expect: warning syncwatch-implicit-sync
  DeviceBuffer(const DeviceBuffer &) = delete;
  T *get() const { return data_; }
  size_t size() const { return n_; }

private:
  T *data_ = nullptr;
  size_t n_;
};

// A host-side guard with a destructor of its own: nothing on the GPU (silent).
struct Timer {
  const char *label;
  ~Timer() { std::printf("%s done\n", label); }
};

// A plain aggregate: no destructor of the program's own (silent).
struct Launch {
  dim3 grid, block;
};

__global__ void saxpy(float a, const float *x, float *y, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void step(const float *x, size_t n, cudaStream_t stream) {
  Timer t{"step"};
  Launch l{dim3((n + 255) / 256), dim3(256)};
  DeviceBuffer<float> scratch(n);
  saxpy<<<l.grid, l.block, 0, stream>>>(2.0f, x, scratch.get(), n);
}  // scratch freed here while saxpy may run

void step_synced(const float *x, size_t n, cudaStream_t stream) {
  DeviceBuffer<float> scratch(n);
  saxpy<<<(n + 255) / 256, 256, 0, stream>>>(2.0f, x, scratch.get(), n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
}  // silent: the stream was drained before the buffer goes

void step_heap(const float *x, size_t n, cudaStream_t stream) {
  auto *scratch = new DeviceBuffer<float>(n);
  saxpy<<<(n + 255) / 256, 256, 0, stream>>>(2.0f, x, scratch->get(), n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  delete scratch;  // silent: drained first (a delete while the kernel runs: is_pos_raii_delete.cu)
}

int main() {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer<float> x(1 << 20);
  step(x.get(), x.size(), stream);
  step_synced(x.get(), x.size(), stream);
  step_heap(x.get(), x.size(), stream);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
