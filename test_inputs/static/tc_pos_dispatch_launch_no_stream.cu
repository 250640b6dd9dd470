// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A fused bias+GELU op in the style of the PyTorch extension tutorials: the kernels are
// launched inside AT_DISPATCH_* with no stream, on the legacy default stream, not on the
// op's current stream -> syncwatch-torch-current-stream at each launch.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

template <typename scalar_t>
__global__ void bias_gelu_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ bias,
                                 scalar_t* __restrict__ y, int64_t n, int64_t cols) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = static_cast<float>(x[i]) + static_cast<float>(bias[i % cols]);
  y[i] = static_cast<scalar_t>(0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));
}

template <typename scalar_t>
__global__ void row_sum_kernel(const scalar_t* __restrict__ y, float* __restrict__ out, int64_t cols) {
  extern __shared__ float partial[];
  float acc = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    acc += static_cast<float>(y[blockIdx.x * cols + c]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

at::Tensor bias_gelu(const at::Tensor& x, const at::Tensor& bias) {
  TORCH_CHECK(x.is_cuda() && bias.is_cuda(), "bias_gelu: CUDA tensors expected");
  auto xc = x.contiguous();
  auto y = at::empty_like(xc);
  const int64_t n = xc.numel();
  const int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(xc.scalar_type(), "bias_gelu", [&] {
    bias_gelu_kernel<scalar_t><<<blocks, threads>>>(  // expect: warning syncwatch-torch-current-stream
        xc.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n, bias.numel());
  });
  return y;
}

at::Tensor bias_gelu_row_sums(const at::Tensor& x, const at::Tensor& bias) {
  auto y = bias_gelu(x, bias);
  auto sums = at::empty({y.size(0)}, y.options().dtype(at::kFloat));
  const int threads = 128;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(y.scalar_type(), "row_sums", [&] {
    row_sum_kernel<scalar_t><<<y.size(0), threads, threads * sizeof(float)>>>(  // expect: warning syncwatch-torch-current-stream
        y.data_ptr<scalar_t>(), sums.data_ptr<float>(), y.size(1));
  });
  return sums;
}

TORCH_LIBRARY(swdemo, m) {
  m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
  m.def("bias_gelu_row_sums(Tensor x, Tensor bias) -> Tensor");
}

TORCH_LIBRARY_IMPL(swdemo, CUDA, m) {
  m.impl("bias_gelu", &bias_gelu);
  m.impl("bias_gelu_row_sums", &bias_gelu_row_sums);
}
