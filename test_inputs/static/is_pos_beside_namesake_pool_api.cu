// A project's own memory pool whose functions carry CUDA's names, in a namespace of its own
// (AMGX's amgx::memory::cudaFreeHost, cudaMallocAsync and cudaFreeAsync): they are the
// pool's, not CUDA's. No implicit-sync for the pool's cudaFreeHost while a kernel runs, no
// default-stream for its stream-less cudaMallocAsync / cudaFreeAsync. The real CUDA calls
// next to them are still judged.
#include <cuda_runtime.h>

#include <cstdlib>

namespace pool {
inline cudaError_t cudaFreeHost(void *p) {
  std::free(p);  // returned to the pool's free list in the real thing
  return cudaSuccess;
}
inline cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t = 0) {
  *p = std::malloc(bytes);
  return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t = 0) {
  std::free(p);
  return cudaSuccess;
}
} // namespace pool

struct Arena {
  // A member of the same name: the program's too.
  cudaError_t cudaFree(void *p) { (void)p; return cudaSuccess; }
};

__global__ void fill(float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = 0.f;
}

void step(float *d, float *pinned, int n, cudaStream_t s, Arena &arena) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(pinned, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  pool::cudaFreeHost(pinned);
  void *scratch = nullptr;
  pool::cudaMallocAsync(&scratch, 64);
  pool::cudaFreeAsync(scratch);
  arena.cudaFree(d);
  ::cudaFree(scratch);  // expect: warning syncwatch-implicit-sync
}
