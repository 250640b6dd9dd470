// A blur pass that calls the header's helpers: a stream-less helper (the file's blocking
// stream then serializes with it), a pageable upload through a template, a wait in a loop
// behind a method, and a macro launch.
#include "gpu_helpers.cuh"

#include <cstdlib>
#include <vector>

__global__ void blur(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.f;
}

int main() {
  const int n = 1 << 20;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  cudaStream_t copy_stream;
  CUDA_CHECK(cudaStreamCreate(&copy_stream));
  std::vector<float> h_in(n, 1.f);
  upload_async(d_in, h_in.data(), n, copy_stream);
  Pipeline p;
  p.create();
  for (int pass = 0; pass < 8; ++pass) {
    blur<<<(n + 255) / 256, 256, 0, p.stream>>>(d_in, d_out, n);
    p.run(d_out, n);
    p.wait();
  }
  scale_on_default_stream(d_out, n, 2.f);
  LAUNCH_1D(scale, n, d_out, n, 0.25f);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
