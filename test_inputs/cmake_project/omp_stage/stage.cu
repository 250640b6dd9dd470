// Host side parallelized with OpenMP: this file is compiled with -Xcompiler=-fopenmp.
#include "omp_stage/stage.h"

#include "common/check.h"

#include <omp.h>

namespace omp_stage {

__global__ void smooth_step(const float *in, float *out, std::size_t n) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > 0 && i + 1 < n) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

double smooth(std::size_t n, int steps) {
  float *h = nullptr, *a = nullptr, *b = nullptr;
  CUDA_CHECK(cudaMallocHost(&h, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

#pragma omp parallel for num_threads(omp_get_max_threads())
  for (long i = 0; i < static_cast<long>(n); ++i) h[i] = static_cast<float>(i % 17);

  CUDA_CHECK(cudaMemcpyAsync(a, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  for (int step = 0; step < steps; ++step) {
    smooth_step<<<blocks, 256, 0, s>>>(a, b, n);
    std::swap(a, b);
    CUDA_CHECK(cudaDeviceSynchronize());  // expect: warning syncwatch-sync-in-loop
  }
  CUDA_CHECK(cudaMemcpyAsync(h, a, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  double sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (long i = 0; i < static_cast<long>(n); ++i) sum += h[i];
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFreeHost(h));
  return sum;
}

}  // namespace omp_stage
