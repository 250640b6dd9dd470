// The capture begins in one helper and ends in another (ggml begins it in
// graph_compute and ends it in evaluate_and_capture): the calls between them, in the caller
// and in the ending helper before its cudaStreamEndCapture, are inside it.
#include <cuda_runtime.h>

__global__ void step_kernel(float* state, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] *= 0.99f;
}

void begin_step(cudaStream_t s) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }

cudaGraph_t finish_step(cudaStream_t s, float* state, int n) {
  step_kernel<<<(n + 255) / 256, 256, 0, s>>>(state, n);
  cudaStreamQuery(s);  // expect: warning syncwatch-capture-breaking-call
  cudaGraph_t g;
  cudaStreamEndCapture(s, &g);
  cudaStreamQuery(s);
  return g;
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* state;
  cudaMalloc(&state, 1024 * sizeof(float));
  begin_step(s);
  step_kernel<<<4, 256, 0, s>>>(state, 1024);
  float* more;
  cudaMalloc(&more, 1024 * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
  cudaGraph_t g = finish_step(s, state, 1024);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaFree(more);
  cudaFree(state);
  return 0;
}
