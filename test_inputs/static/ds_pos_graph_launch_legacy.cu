// A graph captured on a side stream but replayed on stream 0: the replay runs on the legacy
// default stream and serializes with every blocking stream. Replaying on the capture stream
// (the second launch) is silent.
#include <cuda_runtime.h>

__global__ void fill(float *p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v;
}

void replay(cudaGraphExec_t exec, cudaStream_t side) {
  cudaGraphLaunch(exec, 0);  // expect: warning syncwatch-default-stream
  cudaGraphLaunch(exec, side);
}

int main() {
  const int n = 4096;
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(side, cudaStreamCaptureModeGlobal);
  fill<<<(n + 255) / 256, 256, 0, side>>>(p, 1.0f, n);
  cudaStreamEndCapture(side, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  replay(exec, side);
  cudaStreamSynchronize(side);
  cudaDeviceSynchronize();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(side);
  cudaFree(p);
  return 0;
}
