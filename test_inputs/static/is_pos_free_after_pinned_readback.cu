// The look-alike: the same round trip with pinned host memory. The readback is truly
// asynchronous, so the transform and the copy may still run when cudaFree waits for the
// whole device: implicit-sync warns (a cudaStreamSynchronize(stream) first says so).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void transform(float2 *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = make_float2(data[i].x - data[i].y, data[i].x + data[i].y);
}

int main() {
  const int n = 1 << 18;
  float2 *host = nullptr, *d_data = nullptr;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaMallocHost(&host, sizeof(float2) * n);
  for (int i = 0; i < n; ++i) host[i] = make_float2(1.f, 0.f);
  cudaMalloc(&d_data, sizeof(float2) * n);
  cudaMemcpyAsync(d_data, host, sizeof(float2) * n, cudaMemcpyHostToDevice, stream);
  transform<<<(n + 255) / 256, 256, 0, stream>>>(d_data, n);
  cudaMemcpyAsync(host, d_data, sizeof(float2) * n, cudaMemcpyDeviceToHost, stream);
  cudaFree(d_data);  // expect: warning syncwatch-implicit-sync
  std::printf("%f\n", host[0].x);
  cudaStreamDestroy(stream);
  cudaFreeHost(host);
  return 0;
}
