// Error checking shared by the demo's libraries (.cu and .cpp files alike).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// nvcc defines __CUDACC__ as 1 and its version macros; plain clang does neither
// (docs/nvcc-compat.md). Code like this is common in real CUDA headers.
#if defined(__CUDACC__) && __CUDACC_VER_MAJOR__ < 12
#error "the demo needs CUDA 12 or newer"
#endif

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorString(err_));                                     \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)
