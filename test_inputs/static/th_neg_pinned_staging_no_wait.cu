// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// The right way to hand results to the host: copy into a pinned staging tensor with
// non_blocking=true on the current stream, record an event, return; the caller waits once.
// Uploads (.to(kCUDA), .cuda()) and metadata (sizes, device, is_cuda) are not waits either.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>

struct Staged {
  at::Tensor host;          // pinned
  at::cuda::CUDAEvent ready;
};

Staged stage_for_host(const at::Tensor& device_values) {
  Staged s{at::empty(device_values.sizes(), device_values.options().device(at::kCPU).pinned_memory(true)), {}};
  s.host.copy_(device_values, /*non_blocking=*/true);
  s.ready.record(at::cuda::getCurrentCUDAStream());
  return s;
}

at::Tensor upload_lengths(const std::vector<int64_t>& lengths) {
  auto host = at::tensor(lengths, at::kLong);
  auto dev = host.to(at::kCUDA, /*non_blocking=*/false);
  TORCH_CHECK(dev.is_cuda() && dev.size(0) == static_cast<int64_t>(lengths.size()));
  return dev.cumsum(0).cuda();
}
