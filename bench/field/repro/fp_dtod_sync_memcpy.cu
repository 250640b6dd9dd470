// FP class: a device-to-device cudaMemcpy / cudaMemcpy2D gets a sync-memcpy WARNING "is
// synchronous", but a DtoD copy does not block the host (docs/measured-behaviour.md:
// "cudaMemcpy DtoD 1 MB (non-Async) 0.03 ms: returns at once"; CUDA's API sync behaviour:
// no host-side synchronization for device-to-device). cudaMemset, measured the same way,
// is a note. From AMGX src/eigensolvers/qr.cu:316 (vstack).
#include <cuda_runtime.h>
__global__ void k(float *d) { d[threadIdx.x] *= 2.f; }

void stack2d(float *dst, const float *top, float *a, cudaStream_t s, size_t w, size_t h) {
  k<<<1, 32, 0, s>>>(a);
  cudaMemcpy2D(dst, w, top, w, w, h, cudaMemcpyDeviceToDevice);   // warning: should be a note
}
void copy1d(float *dst, const float *src, float *a, cudaStream_t s, size_t n) {
  k<<<1, 32, 0, s>>>(a);
  cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);              // warning: should be a note
}
