// A helper that pauses a capture the caller may have under way and resumes it (NVIDIA/warp's
// capturable allocation: cudaStreamEndCapture, the allocation outside the graph, then
// cudaStreamBeginCaptureToGraph into the same graph): it begins no capture of its own, so an
// eager caller's calls after it are not in one. Called during a capture, the capture goes on
// after it (the sync after its call in captured_step is reported). warp itself pauses and
// resumes in two helpers of its own (wp_cuda_graph_pause_capture / _resume_capture): the same.
#include <cuda_runtime.h>

static cudaStreamCaptureMode g_capture_mode = cudaStreamCaptureModeGlobal;

__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

static float* stage(cudaStream_t s, int n) {
  float* p = nullptr;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaStreamIsCapturing(s, &status);
  if (status == cudaStreamCaptureStatusActive) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(s, &graph);  // pause
    cudaMalloc(&p, n * sizeof(float));
    cudaStreamBeginCaptureToGraph(s, graph, nullptr, nullptr, 0, g_capture_mode);  // resume
  } else {
    cudaMalloc(&p, n * sizeof(float));
  }
  return p;
}

void eager_step(cudaStream_t s, int n) {
  float* p = stage(s, n);
  fill<<<(n + 255) / 256, 256, 0, s>>>(p, 1.f, n);
  cudaStreamSynchronize(s);
  cudaFree(p);
}

void captured_step(cudaStream_t s, int n, cudaGraph_t* out) {
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  float* p = stage(s, n);
  fill<<<(n + 255) / 256, 256, 0, s>>>(p, 2.f, n);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, out);
}

// The pause and the resume each in a helper of its own.
static void pause_capture(cudaStream_t s, cudaGraph_t* graph) { cudaStreamEndCapture(s, graph); }
static void resume_capture(cudaStream_t s, cudaGraph_t graph) {
  cudaStreamBeginCaptureToGraph(s, graph, nullptr, nullptr, 0, g_capture_mode);
}

static void* staged_alloc(cudaStream_t s, size_t bytes, bool capturing) {
  void* p = nullptr;
  if (capturing) {
    cudaGraph_t graph = nullptr;
    pause_capture(s, &graph);
    cudaMalloc(&p, bytes);
    resume_capture(s, graph);
  } else {
    cudaMalloc(&p, bytes);
  }
  return p;
}

void eager_step_two_helpers(cudaStream_t s, int n) {
  void* p = staged_alloc(s, n * sizeof(float), false);
  cudaStreamSynchronize(s);
  cudaFree(p);
}
