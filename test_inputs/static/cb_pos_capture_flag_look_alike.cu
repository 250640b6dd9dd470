// Look-alikes of a capture-state guard that do not guard: the condition speaks of captures,
// but the capture begins inside the branch (a "use CUDA graphs" switch), so every call after the
// begin is in it; and a guard on another condition (a debug switch) around a sync.
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

static bool g_debug_sync = false;

void step(cudaStream_t s, float* x, int n, bool use_capture) {
  cudaGraph_t graph;
  if (use_capture) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, 0.5f, n);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
    cudaStreamEndCapture(s, &graph);
  }
}

void checked_step(cudaStream_t s, float* x, int n) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.f, n);
  if (g_debug_sync)
    cudaDeviceSynchronize();  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, &graph);
}
