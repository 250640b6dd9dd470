#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace reduce {

// Sums n values on the device four ways: thrust and cub, each with and without a stream.
double sums(const float *d_values, std::size_t n, cudaStream_t stream);

}  // namespace reduce
