// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A scatter-add op that zeroes its output and stages indices with stream-taking CUDA calls
// given stream 0, no stream, or a synchronous cudaMemset: all of them run on the legacy
// default stream, not on the op's current stream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void scatter_add_kernel(const float* src, const int64_t* index, float* out, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&out[index[i]], src[i]);
}

at::Tensor scatter_add(const at::Tensor& src, const at::Tensor& index, int64_t size) {
  auto out = at::empty({size}, src.options());
  auto staged = at::empty_like(index);
  C10_CUDA_CHECK(cudaMemset(out.data_ptr<float>(), 0, size * sizeof(float)));  // expect: warning syncwatch-torch-current-stream
  C10_CUDA_CHECK(cudaMemcpyAsync(staged.data_ptr<int64_t>(), index.data_ptr<int64_t>(),
                                 index.numel() * sizeof(int64_t), cudaMemcpyDeviceToDevice, 0));  // expect: warning syncwatch-torch-current-stream
  const int64_t n = src.numel();
  auto stream = at::cuda::getCurrentCUDAStream();
  scatter_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(src.data_ptr<float>(), staged.data_ptr<int64_t>(),
                                                          out.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

at::Tensor scatter_add_into(at::Tensor& out, const at::Tensor& src, const at::Tensor& index) {
  C10_CUDA_CHECK(cudaMemsetAsync(out.data_ptr<float>(), 0, out.numel() * sizeof(float)));  // expect: warning syncwatch-torch-current-stream
  const int64_t n = src.numel();
  scatter_add_kernel<<<(n + 255) / 256, 256, 0, cudaStreamLegacy>>>(  // expect: warning syncwatch-torch-current-stream
      src.data_ptr<float>(), index.data_ptr<int64_t>(), out.data_ptr<float>(), n);
  return out;
}
