// Simple producer using a plain cudaStreamCreate (blocking) stream, but nothing
// in the file ever touches the legacy stream: every copy/launch is on the stream,
// and cudaMalloc/cudaFree/cudaDeviceSynchronize are not legacy work -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void box_blur_1d(const float* in, float* out, int n, int r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  int cnt = 0;
  for (int k = -r; k <= r; ++k) {
    int j = i + k;
    if (j >= 0 && j < n) { acc += in[j]; ++cnt; }
  }
  out[i] = acc / cnt;
}

int main() {
  const int n = 1 << 20, radius = 4;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 17);

  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  box_blur_1d<<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n, radius);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("out[100] = %f\n", h_out[100]);

  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
