// Plain C++ built by g++ with -fopenmp (no nvcc): it calls the CUDA runtime, so syncwatch
// analyzes it too.
#include "omp_stage/stage.h"

#include "common/check.h"

#include <omp.h>

#include <numeric>

namespace omp_stage {

HostPool::HostPool(std::size_t n) : n_(n) {
  CUDA_CHECK(cudaMalloc(&device_, n * sizeof(float)));
}

HostPool::~HostPool() { cudaFree(device_); }

double HostPool::upload(const std::vector<float> &values, cudaStream_t stream) {
  const std::size_t n = values.size() < n_ ? values.size() : n_;
  CUDA_CHECK(cudaMemcpyAsync(device_, values.data(), n * sizeof(float),  // expect: warning syncwatch-pageable-async-copy
                             cudaMemcpyHostToDevice, stream));
  double checksum = 0;
#pragma omp parallel for reduction(+ : checksum)
  for (long i = 0; i < static_cast<long>(n); ++i) checksum += values[i];
  return checksum;
}

}  // namespace omp_stage
