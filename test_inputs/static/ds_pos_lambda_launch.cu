// Multi-stage image pipeline where each stage is a lambda. The copies use a
// created stream, but the "gamma" stage lambda launches with no stream.
// Lambdas are analysed like normal code -> one warning inside the lambda.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t st = (call);                                                \
    if (st != cudaSuccess) {                                                \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(st)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void to_float(const uchar4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = make_float4(in[i].x / 255.f, in[i].y / 255.f, in[i].z / 255.f, 1.f);
}

__global__ void gamma_correct(float4* px, int n, float g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) px[i] = make_float4(powf(px[i].x, g), powf(px[i].y, g), powf(px[i].z, g), px[i].w);
}

void process(const uchar4* h_img, int w, int h, float4* h_out) {
  const int n = w * h;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  uchar4* d_in;
  float4* d_f;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(uchar4)));
  CUDA_CHECK(cudaMalloc(&d_f, n * sizeof(float4)));
  const int grid = (n + 255) / 256;

  std::vector<std::function<void()>> stages;
  stages.push_back([&] {
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_img, n * sizeof(uchar4), cudaMemcpyHostToDevice, s));
    to_float<<<grid, 256, 0, s>>>(d_in, d_f, n);
  });
  stages.push_back([&] {
    CUDA_CHECK(cudaStreamSynchronize(s));
    gamma_correct<<<grid, 256>>>(d_f, n, 1.f / 2.2f);  // expect: warning syncwatch-default-stream
    CUDA_CHECK(cudaDeviceSynchronize());
  });
  stages.push_back([&] {
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_f, n * sizeof(float4), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  });
  for (auto& stage : stages) stage();

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_f));
  CUDA_CHECK(cudaStreamDestroy(s));
}
