// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// Host code that touches only CPU tensors, or looks like a sync and is not one:
// factories without a device, .cpu() results, CPU branches and checks, dtype conversions,
// sizes, and nonzero_static (a fixed-size output) -> no syncwatch-torch-host-sync finding.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

at::Tensor make_offsets(int64_t batches, int64_t per_batch) {
  auto offsets = at::arange(batches + 1, at::kLong) * per_batch;  // a CPU tensor
  int64_t total = offsets[batches].item<int64_t>();
  TORCH_CHECK(total == batches * per_batch);
  auto nz = at::zeros({batches}, at::TensorOptions().device(at::kCPU)).nonzero();
  (void)nz;
  return offsets.to(at::kCUDA, /*non_blocking=*/true);
}

double scalar_param(const at::Tensor& t) {
  if (!t.is_cuda())
    return t.item<double>();  // a CPU tensor here
  return 0.0;
}

double checked_cpu(const at::Tensor& t) {
  TORCH_CHECK(t.device().is_cpu(), "t must be on the CPU");
  return t.sum().item<double>();
}

int64_t sizes_only(const at::Tensor& x) {
  auto y = x.to(at::kHalf);             // dtype, same device: no copy to the host
  auto idx = at::nonzero_static(x, 16);  // fixed-size output: no host read
  return y.size(0) + idx.numel() + x.dim();
}

struct Histogram {  // a look-alike with its own item() and cpu()
  int64_t counts[16] = {};
  int64_t item(int b) const { return counts[b]; }
  Histogram cpu() const { return *this; }
};

int64_t first_bin(const Histogram& h) { return h.cpu().item(0); }
