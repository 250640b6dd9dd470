// Shim for the field test: CUDA 13 removed cudaMemAdvise(ptr, size, advice, int device), which
// this AMReX commit still calls (AMReX_GpuDevice.cpp mem_advise_*). Force-included (-include).
#pragma once
#include <cuda_runtime_api.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000
static inline cudaError_t cudaMemAdvise(const void* p, size_t n, cudaMemoryAdvise a, int dev)
{ cudaMemLocation l{}; l.type = cudaMemLocationTypeDevice; l.id = dev; return cudaMemAdvise(p, n, a, l); }
#endif
