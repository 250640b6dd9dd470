// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// CUDA's own syncs inside ops: a cudaDeviceSynchronize after the op's kernel, a blocking
// cudaMemcpy of a counter to the host, a stream synchronize through c10's CUDAStream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__global__ void count_positive(const float* x, int* count, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) atomicAdd(count, 1);
}

int64_t positives(const at::Tensor& x) {
  auto count = at::zeros({1}, x.options().dtype(at::kInt));
  auto stream = at::cuda::getCurrentCUDAStream();
  const int64_t n = x.numel();
  count_positive<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), count.data_ptr<int>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  C10_CUDA_CHECK(cudaDeviceSynchronize());  // expect: warning syncwatch-torch-host-sync
  int host = 0;
  C10_CUDA_CHECK(cudaMemcpy(&host, count.data_ptr<int>(), sizeof(int), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-torch-host-sync
  return host;
}

void positives_into(const at::Tensor& x, at::Tensor& count) {
  auto stream = at::cuda::getCurrentCUDAStream();
  const int64_t n = x.numel();
  count_positive<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), count.data_ptr<int>(), n);
  stream.synchronize();  // expect: warning syncwatch-torch-host-sync
}
