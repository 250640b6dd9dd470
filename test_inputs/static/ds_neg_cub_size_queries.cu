// cub's two-call protocol in a file that uses a stream: the first call of each pair is
// given a null temp-storage pointer and only computes the size - it launches nothing, on no
// stream. The pointer is null through a brace initializer (`d_temp{}`), through a
// reassignment before a second query (`d_temp = nullptr;`), or written as nullptr. The calls
// that do the work pass the stream: nothing is reported.
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

int main() {
  const int n = 1 << 20;
  float *d_in = nullptr, *d_sum = nullptr, *d_max = nullptr;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaMallocAsync(&d_in, n * sizeof(float), stream);
  cudaMallocAsync(&d_sum, sizeof(float), stream);
  cudaMallocAsync(&d_max, sizeof(float), stream);
  cudaMemsetAsync(d_in, 0, n * sizeof(float), stream);

  std::uint8_t *d_temp{};
  std::size_t temp_bytes{};
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n);
  cudaMallocAsync(&d_temp, temp_bytes, stream);
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n, stream);
  cudaFreeAsync(d_temp, stream);

  d_temp = nullptr;
  cub::DeviceReduce::Max(d_temp, temp_bytes, d_in, d_max, n);
  cudaMallocAsync(&d_temp, temp_bytes, stream);
  cub::DeviceReduce::Max(d_temp, temp_bytes, d_in, d_max, n, stream);
  cudaFreeAsync(d_temp, stream);

  std::size_t min_bytes = 0;
  cub::DeviceReduce::Min(nullptr, min_bytes, d_in, d_max, n);

  float sum = 0.f;
  cudaMemcpyAsync(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost, stream);  // expect: warning syncwatch-pageable-async-copy
  cudaStreamSynchronize(stream);
  std::printf("%f %zu\n", sum, min_bytes);
  cudaStreamDestroy(stream);
  return 0;
}
