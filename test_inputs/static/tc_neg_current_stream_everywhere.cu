// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// Look-alikes that are right: streams from getCurrentCUDAStream, getStreamFromPool, a
// CUDAStreamGuard's current stream, a stream parameter and a member stream; cuBLAS through
// PyTorch's handle, which is set to the current stream -> no finding.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cublas_v2.h>

template <typename scalar_t>
__global__ void scale_kernel(const scalar_t* x, scalar_t* y, float a, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<scalar_t>(a * static_cast<float>(x[i]));
}

at::Tensor scale(const at::Tensor& x, double a) {
  auto y = at::empty_like(x);
  const int64_t n = x.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t><<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                                                               static_cast<float>(a), n);
  });
  return y;
}

void scale_on(const at::Tensor& x, at::Tensor& y, double a, cudaStream_t stream) {
  const int64_t n = x.numel();
  scale_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                          static_cast<float>(a), n);
  cudaMemsetAsync(y.data_ptr<float>() + n, 0, sizeof(float), stream);
}

at::Tensor scale_on_pool_stream(const at::Tensor& x, double a) {
  auto y = at::empty_like(x);
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/true);
  c10::cuda::CUDAStreamGuard guard(side);
  const int64_t n = x.numel();
  scale_kernel<float><<<(n + 255) / 256, 256, 0, guard.current_stream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), static_cast<float>(a), n);
  C10_CUDA_CHECK(cudaMemcpyAsync(y.data_ptr<float>(), y.data_ptr<float>(), 0, cudaMemcpyDeviceToDevice,
                                 at::cuda::getCurrentCUDAStream()));
  return y;
}

class Scaler {
 public:
  explicit Scaler(double a) : a_(a), stream_(c10::cuda::getCurrentCUDAStream()) {}
  at::Tensor operator()(const at::Tensor& x) const {
    auto y = at::empty_like(x);
    const int64_t n = x.numel();
    scale_kernel<float><<<(n + 255) / 256, 256, 0, stream_.stream()>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                                       static_cast<float>(a_), n);
    return y;
  }

 private:
  double a_;
  c10::cuda::CUDAStream stream_;
};

at::Tensor gemm(const at::Tensor& a, const at::Tensor& b) {
  auto c = at::empty({a.size(0), b.size(1)}, a.options());
  const float alpha = 1.f, beta = 0.f;
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, b.size(1), a.size(0), a.size(1), &alpha, b.data_ptr<float>(),
              b.size(1), a.data_ptr<float>(), a.size(1), &beta, c.data_ptr<float>(), b.size(1));
  return c;
}
