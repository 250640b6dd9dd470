// Capture done right: allocations and host syncs before BeginCapture and after EndCapture;
// inside, only work on the capturing stream - kernels, pinned async copies, an event record
// and a wait for it, a wait for an outside event marked cudaEventWaitExternal, stream-ordered
// allocation - and a kernel on the legacy stream, which a non-blocking capture does not join.
#include <cuda_runtime.h>

__global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 18;
  float *x, *y, *host;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMallocHost(&host, n * sizeof(float));
  cudaStream_t s, side;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready, external;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&external, cudaEventDisableTiming);
  saxpy<<<n / 256, 256, 0, side>>>(y, x, 1.0f, n);
  cudaEventRecord(external, side);
  cudaDeviceSynchronize();

  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaMemcpyAsync(x, host, n * sizeof(float), cudaMemcpyHostToDevice, s);
  float* tmp;
  cudaMallocAsync(&tmp, n * sizeof(float), s);
  saxpy<<<n / 256, 256, 0, s>>>(tmp, x, 2.0f, n);
  saxpy<<<n / 256, 256, 0, s>>>(y, tmp, 0.5f, n);
  cudaFreeAsync(tmp, s);
  cudaEventRecord(ready, s);
  cudaMemcpyAsync(host, y, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamWaitEvent(s, ready, 0);
  cudaStreamWaitEvent(s, external, cudaEventWaitExternal);
  saxpy<<<n / 256, 256>>>(x, x, 1.0f, n);  // expect: warning syncwatch-default-stream
  cudaStreamEndCapture(s, &graph);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  cudaEventSynchronize(ready);
  cudaDeviceSynchronize();
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFreeHost(host);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
