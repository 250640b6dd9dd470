// A 1D FFT-style round trip: the result is read back with cudaMemcpyAsync into a
// std::vector (pageable), then the device buffer is freed. A copy into pageable memory
// returns only when it is done, and so only after all earlier work on its stream (measured
// on the H200: 64 MB device-to-host on an idle non-blocking stream, 3.9 ms of host time):
// nothing is in flight at the cudaFree, and implicit-sync stays silent. The copy itself is
// pageable-async-copy's finding.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void transform(float2 *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = make_float2(data[i].x - data[i].y, data[i].x + data[i].y);
}

int main() {
  const int n = 1 << 18;
  std::vector<float2> host(n, make_float2(1.f, 0.f));
  float2 *d_data = nullptr;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaMalloc(&d_data, sizeof(float2) * n);
  cudaMemcpyAsync(d_data, host.data(), sizeof(float2) * n, cudaMemcpyHostToDevice, stream);  // expect: warning syncwatch-pageable-async-copy
  transform<<<(n + 255) / 256, 256, 0, stream>>>(d_data, n);
  cudaMemcpyAsync(host.data(), d_data, sizeof(float2) * n, cudaMemcpyDeviceToHost, stream);  // expect: warning syncwatch-pageable-async-copy
  cudaFree(d_data);
  std::printf("%f\n", host[0].x);
  cudaStreamDestroy(stream);
  return 0;
}
