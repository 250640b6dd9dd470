// clang-flags: @TORCH@
// nvcc-flags: @TORCH@
// A C++ extension that captures its fused step with at::cuda::CUDAGraph (global mode by
// default): a .item() inside the captured step makes the host wait for the capturing stream
// and the capture fails. The same read after capture_end is only a host sync. A cudaMalloc
// inside the capture is allowed under a relaxed CUDAStreamCaptureModeGuard only.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void clip_kernel(float* g, float limit, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) g[i] = fminf(fmaxf(g[i], -limit), limit);
}

struct CapturedStep {
  at::cuda::CUDAGraph graph;
  at::Tensor grads;

  void capture(const at::Tensor& g) {
    TORCH_CHECK(g.is_cuda(), "grads must be a CUDA tensor");
    grads = g;
    auto side = at::cuda::getStreamFromPool();
    c10::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin();
    const int64_t n = grads.numel();
    clip_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(grads.data_ptr<float>(), 1.0f, n);
    float norm = grads.norm().item<float>();  // expect: warning syncwatch-torch-host-sync; warning syncwatch-capture-breaking-call
    grads.div_(norm + 1e-6f);
    graph.capture_end();
  }

  // A workspace allocated inside the capture: allowed under a relaxed CUDAStreamCaptureModeGuard
  // (PyTorch's own allocator does this), not after the guard's block.
  void capture_with_workspace(const at::Tensor& g) {
    TORCH_CHECK(g.is_cuda(), "grads must be a CUDA tensor");
    auto side = at::cuda::getStreamFromPool();
    c10::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin();
    float* workspace = nullptr;
    {
      c10::cuda::CUDAStreamCaptureModeGuard relaxed(cudaStreamCaptureModeRelaxed);
      cudaMalloc(&workspace, g.numel() * sizeof(float));
    }
    float* late = nullptr;
    cudaMalloc(&late, g.numel() * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
    const int64_t n = g.numel();
    clip_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(workspace, 1.0f, n);
    graph.capture_end();
  }

  float replay_and_read() {
    graph.replay();
    return grads.norm().item<float>();  // expect: warning syncwatch-torch-host-sync
  }
};
