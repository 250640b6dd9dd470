#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace omp_stage {

// Fills a pinned staging buffer with OpenMP threads and runs `steps` smoothing passes.
double smooth(std::size_t n, int steps);

// A pool of device buffers refilled from host vectors (host_pool.cpp, built by g++).
class HostPool {
public:
  explicit HostPool(std::size_t n);
  ~HostPool();
  double upload(const std::vector<float> &values, cudaStream_t stream);

private:
  float *device_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace omp_stage
