// The look-alike of ds_neg_cub_size_queries.cu: after the temp storage was allocated
// (cudaMalloc(&d_temp, ...) writes the pointer), the call that does the work leaves out the
// stream and runs on the legacy stream, in a file that uses a non-blocking stream. A pointer
// set to nullptr earlier and then allocated is no size query.
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

int main() {
  const int n = 1 << 20;
  float *d_in = nullptr, *d_sum = nullptr;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_sum, sizeof(float));
  cudaMemsetAsync(d_in, 0, n * sizeof(float), stream);
  cudaStreamSynchronize(stream);

  void *d_temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n, stream);
  d_temp = nullptr;
  cudaMalloc(&d_temp, temp_bytes);
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n);  // expect: warning syncwatch-default-stream
  cudaDeviceSynchronize();
  cudaFree(d_temp);
  cudaFree(d_in);
  cudaFree(d_sum);
  cudaStreamDestroy(stream);
  return 0;
}
