// clang-flags: @TORCH@ -fgpu-default-stream=per-thread
// nvcc-flags: @TORCH@ --default-stream per-thread
// Built with a per-thread default stream: a launch with no stream goes to the thread's own
// default stream, which is not PyTorch's current stream either -> still reported. An
// explicit cudaStreamPerThread is a stream the author chose: silent.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0.f) x[i] = 0.f;
}

at::Tensor relu_(at::Tensor x) {
  const int64_t n = x.numel();
  relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);  // expect: warning syncwatch-torch-current-stream
  return x;
}

at::Tensor relu_per_thread_(at::Tensor x) {
  const int64_t n = x.numel();
  relu_kernel<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(x.data_ptr<float>(), n);
  return x;
}
