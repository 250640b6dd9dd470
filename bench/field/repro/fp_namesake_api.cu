// FP class: project functions in their own namespace that carry a CUDA API's name are judged
// as that API. AMGX's amgx::memory::cudaFreeHost / cudaMallocAsync / cudaFreeAsync
// (include/global_thread_handle.h:205-208, src/global_thread_handle.cu:824,852) are pool
// allocators: without USE_CUDAMALLOCASYNC they never call CUDA and take no stream.
// From AMGX include/vector.h:282 (implicit-sync), include/vector_thrust_allocator.h:104 and
// include/cutil.h:295 (default-stream).
#include <cuda_runtime.h>
#include <cstdlib>
namespace pool {
inline cudaError_t cudaFreeHost(void *p) { std::free(p); return cudaSuccess; }   // pool free
inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t = 0) {      // pool alloc
  *p = std::malloc(n); return cudaSuccess; }
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t = 0) { std::free(p); return cudaSuccess; }
} // namespace pool

__global__ void k(float *d) { d[threadIdx.x] = 0.f; }

void step(float *d, float *pinned, cudaStream_t s) {
  k<<<1, 32, 0, s>>>(d);
  cudaMemcpyAsync(pinned, d, 32 * sizeof(float), cudaMemcpyDeviceToHost, s);
  pool::cudaFreeHost(pinned);   // warning: syncwatch-implicit-sync (should be silent)
  void *tmp;
  pool::cudaMallocAsync(&tmp, 64);   // warning: syncwatch-default-stream (should be silent)
  pool::cudaFreeAsync(tmp);          // warning: syncwatch-default-stream (should be silent)
}
