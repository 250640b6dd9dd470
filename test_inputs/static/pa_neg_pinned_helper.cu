// Look-alike of the "helper returns malloc'd memory" case: make_pinned() returns memory from
// cudaMallocHost, and a small pool hands out cudaHostAlloc'd slabs; every async copy uses
// them -> pinned (or unknown) host memory, no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

static float* make_pinned(size_t count) {
  float* p = nullptr;
  CUDA_CHECK(cudaMallocHost(&p, count * sizeof(float)));
  return p;
}

class PinnedPool {
 public:
  PinnedPool(size_t slab_bytes, int slabs) {
    for (int i = 0; i < slabs; ++i) {
      void* p = nullptr;
      CUDA_CHECK(cudaHostAlloc(&p, slab_bytes, cudaHostAllocPortable));
      free_.push_back(p);
    }
  }
  ~PinnedPool() { for (void* p : free_) cudaFreeHost(p); }
  void* acquire() { void* p = free_.back(); free_.pop_back(); return p; }
  void release(void* p) { free_.push_back(p); }
 private:
  std::vector<void*> free_;
};

__global__ void relu(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.f);
}

int main() {
  const int n = 1 << 22;
  PinnedPool pool(n * sizeof(float), 2);
  float* h_in = make_pinned(n);
  float* h_out = static_cast<float*>(pool.acquire());
  float* d_x;
  cudaStream_t s;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 5) - 2.f;

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s));
  relu<<<(n + 255) / 256, 256, 0, s>>>(d_x, n);
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  printf("out[1] = %f\n", h_out[1]);

  pool.release(h_out);
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
