// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A CUDAStreamGuard sets PyTorch's current stream, not CUDA's: a launch with no stream under
// the guard still goes to the legacy default stream. A launch helper macro hides one more.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)

__global__ void fill_kernel(float* out, float value, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void axpy_kernel(float a, const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

void fill_on_side_stream(at::Tensor& out, double value) {
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(side);
  const int64_t n = out.numel();
  fill_kernel<<<(n + 255) / 256, 256>>>(out.data_ptr<float>(), static_cast<float>(value), n);  // expect: warning syncwatch-torch-current-stream
}

void axpy_(double a, const at::Tensor& x, at::Tensor& y) {
  const int64_t n = x.numel();
  LAUNCH_1D(axpy_kernel, n, static_cast<float>(a), x.data_ptr<float>(), y.data_ptr<float>(), n);  // expect: warning syncwatch-torch-current-stream
}

// A launch in a template helper and in a lambda: reported once, where it is written.
template <typename F>
void for_each_chunk(const at::Tensor& t, int64_t chunk, F&& body) {
  for (int64_t off = 0; off < t.numel(); off += chunk)
    body(off, std::min(chunk, t.numel() - off));
}

void fill_chunks(at::Tensor& out, double value) {
  for_each_chunk(out, 1 << 20, [&](int64_t off, int64_t len) {
    fill_kernel<<<(len + 255) / 256, 256>>>(out.data_ptr<float>() + off, static_cast<float>(value), len);  // expect: warning syncwatch-torch-current-stream
  });
}
