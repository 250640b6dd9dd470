// Code that checks whether a capture is under way before a call that would break it, as
// allocators and runtimes do (NVIDIA/warp frees only `if (g_captures.empty())` and defers the
// free otherwise; PyTorch asks currentStreamCaptureStatus()): the guarded call never runs
// inside the capture. The guard is read from its condition - a variable, member or call whose
// name speaks of captures, or cudaStreamIsCapturing's status - on the branch that runs without
// one, and from an early return when one is active. A helper guarded at its call counts too.
#include <cuda_runtime.h>

#include <vector>

#define CHECK_CUDA(call) do { if ((call) != cudaSuccess) return; } while (0)

__global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

// The program's own registry of its captures (warp's g_captures).
static std::vector<cudaStream_t> g_captures;
static std::vector<void*> g_deferred_frees;

static void free_device(void* p) {
  if (g_captures.empty()) {
    cudaError_t err = cudaFree(p);  // (its result kept: the guard is still the if's)
    (void)err;
  } else {
    g_deferred_frees.push_back(p);  // freed after the capture ends
  }
}

// cudaStreamIsCapturing's status, with the early return form.
static void sync_unless_capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK_CUDA(cudaStreamIsCapturing(s, &status));
  if (status != cudaStreamCaptureStatusNone)
    return;
  CHECK_CUDA(cudaStreamSynchronize(s));
}

struct Pool {
  bool capturing = false;
  void* cached = nullptr;
  void* get(size_t bytes) {
    void* p = nullptr;
    if (!capturing)
      cudaMalloc(&p, bytes);
    else
      p = cached;  // served from what was set aside before the capture
    return p;
  }
};

void record_step(cudaStream_t s, float* y, const float* x, void* scratch, Pool& pool, int n) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  g_captures.push_back(s);
  pool.capturing = true;
  axpy<<<(n + 255) / 256, 256, 0, s>>>(y, x, 2.f, n);
  free_device(scratch);
  sync_unless_capturing(s);
  void* w = pool.get(1 << 20);
  auto maybe_wait = [&](bool active_capture) {
    if (!active_capture)
      cudaDeviceSynchronize();
  };
  maybe_wait(true);
  (void)w;
  cudaStreamEndCapture(s, &graph);
  g_captures.pop_back();
  pool.capturing = false;
}
