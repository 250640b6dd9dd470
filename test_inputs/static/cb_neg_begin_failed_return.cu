// A graph builder that gives up when cudaStreamBeginCapture fails returns with no capture
// begun (NVIDIA/cutlass's distributed GEMM wrapper, construct_graph): its caller's sync after
// the call is outside every capture, on that path as on the path where the builder ended
// its capture. The status is tested at the call, in a variable, or with `== cudaSuccess`
// and an else; the failure branch returns, or returns through a macro.
#include <cuda_runtime.h>

#define RETURN_IF_FAILED(call)                  \
  do {                                          \
    cudaError_t status_ = (call);               \
    if (status_ != cudaSuccess) return status_; \
  } while (0)

__global__ void step_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.f;
}

struct GraphRunner {
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  int construct_graph(float *x, int n) {
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess)
      return 1;
    step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
    if (cudaStreamEndCapture(stream, &graph) != cudaSuccess)
      return 2;
    return cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess ? 0 : 3;
  }

  cudaError_t construct_checked(float *x, int n) {
    cudaError_t rc = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    if (rc) return rc;
    step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
    return cudaStreamEndCapture(stream, &graph);
  }

  bool construct_else(float *x, int n) {
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
      step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
      cudaStreamEndCapture(stream, &graph);
      return true;
    } else {
      return false;
    }
  }

  cudaError_t construct_macro(float *x, int n) {
    RETURN_IF_FAILED(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
    return cudaStreamEndCapture(stream, &graph);
  }
};

int main() {
  const int n = 1 << 20;
  float *x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  GraphRunner r;
  cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking);
  r.construct_graph(x, n);
  cudaDeviceSynchronize();
  r.construct_checked(x, n);
  cudaDeviceSynchronize();
  r.construct_else(x, n);
  cudaDeviceSynchronize();
  r.construct_macro(x, n);
  cudaDeviceSynchronize();
  for (int i = 0; i < 10; ++i)
    cudaGraphLaunch(r.exec, r.stream);
  cudaStreamSynchronize(r.stream);
  cudaFree(x);
  return 0;
}
