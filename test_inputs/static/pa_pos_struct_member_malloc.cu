// Batch loader: a LoaderJob struct gets its host staging buffer from malloc in the same
// function that then issues cudaMemcpyAsync(job.dev, job.host, ...) -> one pageable-async-copy
// warning. The one-float probe readback goes to cudaMallocHost memory (silent).
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

struct LoaderJob {
  float* host = nullptr;
  float* dev = nullptr;
  size_t count = 0;
  cudaStream_t stream = nullptr;
};

__global__ void standardize(float* x, size_t n, float mean, float inv_std) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (x[i] - mean) * inv_std;
}

float load_batch(int batch, int features, float mean, float stdev) {
  LoaderJob job;
  job.count = size_t(batch) * features;
  job.host = static_cast<float*>(malloc(job.count * sizeof(float)));
  for (size_t i = 0; i < job.count; ++i) job.host[i] = float(i % 255);

  float* h_probe;
  CUDA_CHECK(cudaStreamCreateWithFlags(&job.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&job.dev, job.count * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_probe, sizeof(float)));

  CUDA_CHECK(cudaMemcpyAsync(job.dev, job.host, job.count * sizeof(float), cudaMemcpyHostToDevice, job.stream));  // expect: warning syncwatch-pageable-async-copy
  const unsigned blocks = unsigned((job.count + 255) / 256);
  standardize<<<blocks, 256, 0, job.stream>>>(job.dev, job.count, mean, 1.f / stdev);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_probe, job.dev, sizeof(float), cudaMemcpyDeviceToHost, job.stream));
  CUDA_CHECK(cudaStreamSynchronize(job.stream));

  const float first = *h_probe;
  CUDA_CHECK(cudaFreeHost(h_probe));
  CUDA_CHECK(cudaFree(job.dev));
  CUDA_CHECK(cudaStreamDestroy(job.stream));
  free(job.host);
  return first;
}
