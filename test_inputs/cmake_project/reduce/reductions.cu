// thrust and cub calls with and without streams. thrust and cub live in CUDA 13's
// include/cccl, which nvcc adds by itself and syncwatch adds for clang.
#include "reduce/reductions.h"

#include "common/check.h"

#include <cub/device/device_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>

namespace reduce {

double sums(const float *d_values, std::size_t n, cudaStream_t stream) {
  thrust::device_ptr<const float> first(d_values);
  // thrust::device names no stream: the legacy default stream (rules/library_api.def).
  const float a = thrust::reduce(thrust::device, first, first + n, 0.0f);  // expect: warning syncwatch-default-stream
  // thrust on the caller's stream.
  const float b = thrust::transform_reduce(
      thrust::cuda::par.on(stream), first, first + n,
      [] __host__ __device__(float x) { return x * x; }, 0.0f, thrust::plus<float>());

  float *d_out = nullptr;
  void *d_temp = nullptr;
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cudaMalloc(&d_out, 2 * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_out, 0, 2 * sizeof(float), stream));
  // cub without a stream (stream 0), then on the caller's stream. The first call only sizes
  // the temp storage (d_temp is still null): no GPU work.
  CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_values, d_out, static_cast<int>(n)));
  CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));  // expect: note syncwatch-implicit-sync
  CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_values, d_out, static_cast<int>(n)));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cub::DeviceReduce::Max(d_temp, temp_bytes, d_values, d_out + 1, static_cast<int>(n),
                                    stream));
  float host[2];
  CUDA_CHECK(cudaMemcpy(host, d_out, sizeof(host), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  CUDA_CHECK(cudaFree(d_temp));  // after the synchronous copy: silent
  CUDA_CHECK(cudaFree(d_out));
  return double(a) + b + host[0] + host[1];
}

}  // namespace reduce
