// A blocking stream (cudaStreamCreate) is captured while the step also clears a buffer with
// cudaMemset and launches one kernel without a stream: both go to the legacy default stream,
// which would depend on the capturing blocking stream - the capture is invalidated. The
// launch gets a fix-it: on the capturing stream it becomes a node of the graph.
#include <cuda_runtime.h>

__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void accumulate(float* acc, const float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += p[i];
}

int main() {
  const int n = 1 << 16;
  float *p, *acc;
  cudaMalloc(&p, n * sizeof(float));
  cudaMalloc(&acc, n * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreate(&stream);  // expect: warning syncwatch-blocking-stream
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaMemset(acc, 0, n * sizeof(float));  // expect: warning syncwatch-capture-breaking-call
  fill<<<n / 256, 256>>>(p, 1.0f, n);  // expect: warning syncwatch-capture-breaking-call; warning syncwatch-default-stream
  accumulate<<<n / 256, 256, 0, stream>>>(acc, p, n);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(p);
  cudaFree(acc);
  return 0;
}
