// A CUDA graph replayed back to back on a non-blocking stream, synchronized once after the
// loop; the loop's other wait is on an event recorded two replays earlier (a bounded queue),
// which waits for an earlier iteration's work, not this one's. No finding.
#include <cuda_runtime.h>

__global__ void relax(float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    u[i] = 0.5f * (u[i - 1] + u[i + 1]);
}

int main() {
  const int n = 1 << 20;
  float *u;
  cudaMalloc(&u, n * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaEvent_t slot[2];
  for (auto &e : slot)
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  relax<<<(n + 255) / 256, 256, 0, stream>>>(u, n);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphInstantiate(&exec, graph, 0);

  for (int step = 0; step < 1000; ++step) {
    if (step >= 2)
      cudaEventSynchronize(slot[step % 2]);  // the replay before last: the GPU stays busy
    cudaGraphLaunch(exec, stream);
    cudaEventRecord(slot[step % 2], stream);
  }
  cudaStreamSynchronize(stream);

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  for (auto &e : slot)
    cudaEventDestroy(e);
  cudaStreamDestroy(stream);
  cudaFree(u);
  return 0;
}
