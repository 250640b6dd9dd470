// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A top-k style op that reads results back on the host inside the op: .item() right after
// the op's own kernel (still running), nonzero() and .cpu() on its CUDA tensors.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void threshold_kernel(const float* x, float t, bool* keep, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) keep[i] = x[i] > t;
}

at::Tensor keep_above_mean(const at::Tensor& scores) {
  TORCH_CHECK(scores.is_cuda(), "scores must be a CUDA tensor");
  auto keep = at::empty(scores.sizes(), scores.options().dtype(at::kBool));
  const int64_t n = scores.numel();
  float mean = scores.mean().item<float>();  // expect: warning syncwatch-torch-host-sync
  threshold_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      scores.data_ptr<float>(), mean, keep.data_ptr<bool>(), n);
  int64_t kept = keep.sum().item<int64_t>();  // expect: warning syncwatch-torch-host-sync
  TORCH_CHECK(kept > 0, "nothing kept");
  return at::nonzero(keep).squeeze(1);  // expect: warning syncwatch-torch-host-sync
}

std::vector<int64_t> kept_indices(const at::Tensor& scores, double t) {
  auto mask = scores.gt(t);
  auto idx = mask.nonzero();  // expect: warning syncwatch-torch-host-sync
  auto host = idx.cpu();  // expect: warning syncwatch-torch-host-sync
  std::vector<int64_t> out(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + host.numel());
  return out;
}

// Options held in a variable: the tensors are made on the GPU.
int64_t bucket_total(const at::Tensor& scores, int64_t buckets) {
  auto opt = at::TensorOptions().dtype(at::kLong).device(at::kCUDA);
  auto counts = at::zeros({buckets}, opt);
  counts.index_add_(0, scores.gt(0).to(at::kLong), at::ones_like(scores, opt));
  return counts.sum().cpu().item<int64_t>();  // expect: warning syncwatch-torch-host-sync
}
