// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A cudaStreamSynchronize inside a loop that launches: sync-in-loop's finding, not a second
// one from syncwatch-torch-host-sync.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void step_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * x[i] + 1.f;
}

void iterate(at::Tensor& x, int steps) {
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const int64_t n = x.numel();
  for (int s = 0; s < steps; ++s) {
    step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
    cudaStreamSynchronize(stream);  // expect: warning syncwatch-sync-in-loop
  }
}
