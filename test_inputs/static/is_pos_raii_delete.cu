// `delete` runs the destructor where it is written: a staging buffer deleted while the
// kernel that reads it may still run frees with cudaFree, a device-wide wait (reported at the
// destructor's cudaFree, with a note at the delete).
#include <cuda_runtime.h>

class Staging {
public:
  explicit Staging(size_t bytes) { cudaMalloc(&data_, bytes); }
  ~Staging() { cudaFree(data_); }  // expect: warning syncwatch-implicit-sync
  float *get() const { return static_cast<float *>(data_); }

private:
  void *data_ = nullptr;
};

__global__ void scale(float *out, const float *in, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

void scale_once(float *out, size_t n, cudaStream_t stream) {
  auto *in = new Staging(n * sizeof(float));
  scale<<<(n + 255) / 256, 256, 0, stream>>>(out, in->get(), n);
  delete in;
}
