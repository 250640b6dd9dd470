// A relaxed capture allocates its workspace lazily, as ggml's legacy pool does: cudaMalloc
// and cudaFree are permitted in relaxed mode, and so are waits for another stream and for an
// event recorded outside the capture (measured). A capture whose mode cannot be read (a
// variable) only gets notes for such calls - none here, as it does nothing unsafe. The cudaFree
// in main waits for nothing: the helper's kernels were captured, not run.
#include <cuda_runtime.h>

__global__ void gelu(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

struct Workspace {
  float* ptr = nullptr;
  size_t size = 0;
  void reserve(size_t bytes) {
    if (bytes <= size) return;
    if (ptr) cudaFree(ptr);
    cudaMalloc(&ptr, bytes);
    size = bytes;
  }
};

cudaGraph_t capture(cudaStream_t s, Workspace& ws, const float* x, int n, cudaStreamCaptureMode mode) {
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  ws.reserve(n * sizeof(float));
  gelu<<<(n + 255) / 256, 256, 0, s>>>(ws.ptr, x, n);
  cudaStreamEndCapture(s, &g);
  cudaGraph_t g2;
  cudaStreamBeginCapture(s, mode);
  gelu<<<(n + 255) / 256, 256, 0, s>>>(ws.ptr, x, n);
  cudaStreamEndCapture(s, &g2);
  cudaGraphDestroy(g2);
  return g;
}

cudaGraph_t relaxed_waits(cudaStream_t s, cudaStream_t loader, cudaEvent_t loaded, float* y, const float* x) {
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  cudaEventSynchronize(loaded);
  cudaStreamSynchronize(loader);
  gelu<<<4, 256, 0, s>>>(y, x, 1024);
  cudaStreamEndCapture(s, &g);
  return g;
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  Workspace ws;
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaGraph_t g = capture(s, ws, x, 1024, cudaStreamCaptureModeThreadLocal);
  cudaGraphDestroy(g);
  cudaFree(x);
  return 0;
}
