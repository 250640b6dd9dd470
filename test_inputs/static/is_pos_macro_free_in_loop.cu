// Batch consumer releasing device batches while kernels are queued, through CUDA_CHECK(cudaFree)
// at the top of the loop (in-loop rule only), a user RELEASE macro, a free after the loop and a
// CUDA_CHECK split over two lines -> two implicit-sync warnings, at the RELEASE use and at the
// split CUDA_CHECK's cudaFree line; the free at the top of the loop and the one after it are
// not reported.
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
#define RELEASE(ptr) CUDA_CHECK(cudaFree(ptr))

struct DeviceBatch {
  int* keys;
  float* vals;
  int n;
};

__global__ void scatter_add(const int* keys, const float* vals, int n, float* table, int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&table[keys[i] % size], vals[i]);
}

__global__ void clear_keys(int* idx, int n, float* table, int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[idx[i] % size] = 0.f;
}

void consume_batches(std::vector<DeviceBatch>& batches, std::vector<int*>& evictions,
                     float* d_table, int size, cudaStream_t s) {
  int* retired_keys = nullptr;
  for (DeviceBatch& b : batches) {
    CUDA_CHECK(cudaFree(retired_keys));
    scatter_add<<<(b.n + 255) / 256, 256, 0, s>>>(b.keys, b.vals, b.n, d_table, size);
    CUDA_CHECK(cudaGetLastError());
    RELEASE(b.vals);  // expect: warning syncwatch-implicit-sync
    retired_keys = b.keys;
    b.keys = nullptr;
    b.vals = nullptr;
  }
  CUDA_CHECK(cudaFree(retired_keys));
  while (!evictions.empty()) {
    int* d_idx = evictions.back();
    evictions.pop_back();
    clear_keys<<<4, 256, 0, s>>>(d_idx, 1024, d_table, size);
    CUDA_CHECK(
        cudaFree(d_idx));  // expect: warning syncwatch-implicit-sync
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
}
