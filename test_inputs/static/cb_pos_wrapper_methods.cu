// A graph runner in the style of trtexec's TrtCudaGraph: beginCapture()/endCapture() wrap
// the capture of a member stream, and the captured step calls a helper and a lambda. The
// helper's stream sync and the lambda's device sync run while the capture is active and are
// reported at their own lines, with the call that brought them into the capture.
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) fprintf(stderr, "%s\n", cudaGetErrorString(err_));       \
  } while (0)

__global__ void layer(float* act, const float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) act[i] = act[i] * w[i] + 1.0f;
}

class GraphRunner {
public:
  GraphRunner() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  void beginCapture() { CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal)); }
  void endCapture() {
    CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void replay() { CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }
  void wait() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  cudaStream_t stream() const { return stream_; }

private:
  cudaStream_t stream_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
};

void forward(GraphRunner& r, float* act, const float* w, int n) {
  for (int l = 0; l < 8; ++l)
    layer<<<(n + 255) / 256, 256, 0, r.stream()>>>(act, w, n);
  CUDA_CHECK(cudaStreamSynchronize(r.stream()));  // expect: warning syncwatch-capture-breaking-call
}

int main() {
  const int n = 4096;
  float *act, *w;
  CUDA_CHECK(cudaMalloc(&act, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&w, n * sizeof(float)));
  GraphRunner runner;
  auto check_all = [&] { CUDA_CHECK(cudaDeviceSynchronize()); };  // expect: warning syncwatch-capture-breaking-call
  runner.beginCapture();
  forward(runner, act, w, n);
  check_all();
  runner.endCapture();
  for (int i = 0; i < 10; ++i)
    runner.replay();
  runner.wait();
  forward(runner, act, w, n);
  check_all();
  CUDA_CHECK(cudaFree(act));
  CUDA_CHECK(cudaFree(w));
  return 0;
}
