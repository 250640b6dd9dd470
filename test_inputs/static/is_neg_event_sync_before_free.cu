// Point-cloud downsampling that waits on a completion event before releasing memory:
// cudaEventSynchronize counts as explicit synchronization, so the cudaFree / cudaFreeHost
// after it are silent; the event wait is not in a loop -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void keep_every_kth(const float4* in, int n, int k, float4* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * k < n) out[i] = in[i * k];
}

int downsample(const float4* d_cloud, int n, int k, float4** h_result) {
  const int m = (n + k - 1) / k;
  cudaStream_t s;
  cudaEvent_t done;
  float4 *d_out, *h_out;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CUDA_CHECK(cudaMalloc(&d_out, m * sizeof(float4)));
  CUDA_CHECK(cudaMallocHost(&h_out, m * sizeof(float4)));

  keep_every_kth<<<(m + 255) / 256, 256, 0, s>>>(d_cloud, n, k, d_out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, m * sizeof(float4), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaEventRecord(done, s));
  CUDA_CHECK(cudaEventSynchronize(done));

  CUDA_CHECK(cudaFree(d_out));
  *h_result = static_cast<float4*>(malloc(m * sizeof(float4)));
  for (int i = 0; i < m; ++i) (*h_result)[i] = h_out[i];
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaEventDestroy(done));
  CUDA_CHECK(cudaStreamDestroy(s));
  return m;
}
