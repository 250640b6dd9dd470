// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A linear layer that keeps a cuBLAS handle of its own: cublasCreate gives a handle on the
// legacy default stream, and no cublasSetStream ever names PyTorch's current stream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>

namespace {
cublasHandle_t handle = nullptr;

cublasHandle_t ownHandle() {
  if (!handle)
    cublasCreate(&handle);
  return handle;
}
}  // namespace

// y = x * w^T for row-major x [m, k] and w [n, k].
at::Tensor linear_forward(const at::Tensor& x, const at::Tensor& w) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat, "linear_forward: float CUDA input");
  const int m = x.size(0), k = x.size(1), n = w.size(0);
  auto y = at::empty({m, n}, x.options());
  const float alpha = 1.f, beta = 0.f;
  ownHandle();
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w.data_ptr<float>(), k,  // expect: warning syncwatch-torch-current-stream
              x.data_ptr<float>(), k, &beta, y.data_ptr<float>(), n);
  return y;
}

at::Tensor linear_backward_input(const at::Tensor& grad_y, const at::Tensor& w) {
  const int m = grad_y.size(0), n = grad_y.size(1), k = w.size(1);
  auto grad_x = at::empty({m, k}, grad_y.options());
  const float alpha = 1.f, beta = 0.f;
  cublasSetMathMode(ownHandle(), CUBLAS_TF32_TENSOR_OP_MATH);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, &alpha, w.data_ptr<float>(), k,  // expect: warning syncwatch-torch-current-stream
              grad_y.data_ptr<float>(), n, &beta, grad_x.data_ptr<float>(), k);
  return grad_x;
}
