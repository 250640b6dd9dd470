// A solver step captured into a CUDA graph once and replayed: the capture holds a stream
// sync, a wait for an event recorded inside it, a device sync, a sync of another stream
// (global mode forbids it) and a stream wait for an event recorded before the capture, each of
// which invalidates it. The same calls before BeginCapture and after EndCapture are fine.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void relax(float* x, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) x[i] = 0.5f * (x[i - 1] + x[i + 1]) + b[i];
}

__global__ void residual(const float* x, float* r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = x[i] * x[i];
}

int main() {
  const int n = 1 << 20;
  float *x, *b, *r;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&r, n * sizeof(float));
  cudaStream_t s, io;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&io, cudaStreamNonBlocking);
  cudaEvent_t done, loaded;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming);
  residual<<<n / 256, 256, 0, io>>>(b, r, n);
  cudaEventRecord(loaded, io);
  cudaStreamSynchronize(s);

  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaStreamWaitEvent(s, loaded, 0);  // expect: warning syncwatch-capture-breaking-call
  for (int sweep = 0; sweep < 4; ++sweep)
    relax<<<n / 256, 256, 0, s>>>(x, b, n);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
  residual<<<n / 256, 256, 0, s>>>(x, r, n);
  cudaEventRecord(done, s);
  cudaEventSynchronize(done);  // expect: warning syncwatch-capture-breaking-call
  cudaDeviceSynchronize();  // expect: warning syncwatch-capture-breaking-call
  cudaStreamSynchronize(io);  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, &graph);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  for (int step = 0; step < 100; ++step)
    cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaStreamSynchronize(io);
  printf("done\n");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(x);
  cudaFree(b);
  cudaFree(r);
  return 0;
}
