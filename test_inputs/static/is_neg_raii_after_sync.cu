// RAII look-alikes that stay silent: each buffer's destructor frees with cudaFree, but
// nothing is running when it does - the work was waited for, the block ended before any
// launch, or the object is a reference or a static that the block does not destroy.
#include <cuda_runtime.h>

class Pinned {
public:
  explicit Pinned(size_t bytes) { cudaMallocHost(&p_, bytes); }
  ~Pinned() { cudaFreeHost(p_); }
  float *get() const { return static_cast<float *>(p_); }

private:
  void *p_ = nullptr;
};

class Device {
public:
  explicit Device(size_t bytes) { cudaMalloc(&p_, bytes); }
  ~Device() { cudaFree(p_); }
  float *get() const { return static_cast<float *>(p_); }

private:
  void *p_ = nullptr;
};

__global__ void square(float *d, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= d[i];
}

float sum_of_squares(size_t n, cudaStream_t stream) {
  Pinned host(n * sizeof(float));
  Device dev(n * sizeof(float));
  square<<<(n + 255) / 256, 256, 0, stream>>>(dev.get(), n);
  cudaMemcpyAsync(host.get(), dev.get(), n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  float s = 0;
  for (size_t i = 0; i < n; ++i) s += host.get()[i];
  return s;
}  // both freed after the sync

void warm_up(size_t n) {
  { Device probe(n * sizeof(float)); }  // freed before any launch
  Device &shared = *new Device(n * sizeof(float));  // a reference: not destroyed here
  static Device cache(n * sizeof(float));           // a static: destroyed at exit, not here
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  square<<<1, 256, 0, s>>>(shared.get(), 256);
  square<<<1, 256, 0, s>>>(cache.get(), 256);
  cudaDeviceSynchronize();
  cudaStreamDestroy(s);
}
