// thrust and cub in code that uses streams: an algorithm without an execution policy on a
// stream, thrust::device, and a cub::Device* call without its stream argument all run on
// the legacy default stream. par.on(s), par_nosync.on(s), host iterators, the size query
// of cub's two-phase calls and cub with its stream are silent.
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <cuda_runtime.h>

#include <vector>

float rank_scores(thrust::device_vector<float>& scores, std::vector<float>& host_copy,
                  cudaStream_t s) {
  thrust::sort(scores.begin(), scores.end());  // expect: warning syncwatch-default-stream
  thrust::sort(thrust::device, scores.begin(), scores.end());  // expect: warning syncwatch-default-stream
  thrust::sort(thrust::cuda::par.on(s), scores.begin(), scores.end());
  thrust::sort(thrust::cuda::par_nosync.on(s), scores.begin(), scores.end());
  thrust::sort(host_copy.begin(), host_copy.end());
  return thrust::reduce(thrust::cuda::par.on(s), scores.begin(), scores.end(), 0.f);
}

void sum_rows(const float* d_in, float* d_out, int n, cudaStream_t s) {
  void* d_temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n);
  cudaMallocAsync(&d_temp, temp_bytes, s);
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n);  // expect: warning syncwatch-default-stream
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, s);
  cudaFreeAsync(d_temp, s);
}
