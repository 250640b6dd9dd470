// clang-flags: @TORCH@ -fgpu-rdc
// nvcc-flags: @TORCH@ -rdc=true
// A cuBLAS handle of the extension's own that is given PyTorch's current stream before each
// use, and a dynamic-parallelism child launch (device code: not the op's host code) ->
// no syncwatch-torch-current-stream finding.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>

struct BlasContext {
  cublasHandle_t handle = nullptr;
  BlasContext() { cublasCreate(&handle); }
  ~BlasContext() { cublasDestroy(handle); }
};

at::Tensor matvec(const at::Tensor& a, const at::Tensor& x) {
  static BlasContext ctx;
  cublasSetStream(ctx.handle, at::cuda::getCurrentCUDAStream());
  auto y = at::empty({a.size(0)}, a.options());
  const float alpha = 1.f, beta = 0.f;
  cublasSgemv(ctx.handle, CUBLAS_OP_T, a.size(1), a.size(0), &alpha, a.data_ptr<float>(), a.size(1),
              x.data_ptr<float>(), 1, &beta, y.data_ptr<float>(), 1);
  return y;
}

__global__ void child(float* p) { p[threadIdx.x] *= 2.f; }

__global__ void parent(float* p, int chunks) {
  if (threadIdx.x < chunks) child<<<1, 32>>>(p + 32 * threadIdx.x);
}
