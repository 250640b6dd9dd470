// A batch step that allocates its scratch buffers inside the capture (thread-local mode):
// cudaMalloc, cudaMallocHost and cudaFree are not permitted while the capturing thread's
// stream is captured, and they invalidate the graph. cudaMallocAsync / cudaFreeAsync on the
// capturing stream become graph nodes and are fine.
// Work queued into the capture runs only when the graph is launched: neither the cudaFree
// inside the capture nor the one in main after both captures waits for any of it (WorkFlow
// issues no work into a capture of its own stream: no implicit-sync warning).
#include <cuda_runtime.h>

__global__ void scale(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

cudaGraph_t capture_batch(cudaStream_t s, const float* x, int n) {
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  float* scratch;
  cudaMalloc(&scratch, n * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
  float* staging;
  cudaMallocHost(&staging, n * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
  float* pooled;
  cudaMallocAsync(&pooled, n * sizeof(float), s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(scratch, x, 2.0f, n);
  scale<<<(n + 255) / 256, 256, 0, s>>>(pooled, scratch, 0.5f, n);
  cudaFreeAsync(pooled, s);
  cudaFree(scratch);  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, &g);
  cudaFreeHost(staging);
  return g;
}

// A global capture whose thread pushes relaxed mode around a lazy allocation, as PyTorch's
// caching allocator does: that cudaMalloc is allowed; the one after the pop is not.
cudaGraph_t capture_with_pool(cudaStream_t s, const float* x, int n) {
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  float* pooled;
  cudaMalloc(&pooled, n * sizeof(float));
  cudaThreadExchangeStreamCaptureMode(&mode);
  float* late;
  cudaMalloc(&late, n * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
  scale<<<(n + 255) / 256, 256, 0, s>>>(late, x, 1.0f, n);
  scale<<<(n + 255) / 256, 256, 0, s>>>(pooled, late, 1.0f, n);
  cudaStreamEndCapture(s, &g);
  return g;
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaGraph_t g = capture_batch(s, x, 4096);
  cudaGraphDestroy(g);
  g = capture_with_pool(s, x, 4096);
  cudaGraphDestroy(g);
  cudaFree(x);
  return 0;
}
