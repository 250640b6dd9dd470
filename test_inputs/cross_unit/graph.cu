// The pipeline's step captured into a CUDA graph, with the stages of ops.cu: scale_async()
// only queues its kernel on the captured stream (captured with it), but finish() waits for
// the stream on the host, in ops.cu - inside the capture, which it breaks. Known only from
// ops.cu's summary (syncwatch-lint's second phase).
#include "ops.h"

int main() {
  const int n = 1 << 16;
  float *dev;
  cudaMalloc(&dev, n * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  scale_async(dev, n, stream);
  finish(stream);  // expect: syncwatch-capture-breaking-call (waits in ops.cu, inside the capture)
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, stream);
  finish(stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(dev);
  return 0;
}
