// FP class: a callee that returns early when cudaStreamBeginCapture FAILS is taken as returning
// with the capture active, so a cudaDeviceSynchronize in the caller after the call gets a
// syncwatch-capture-breaking-call warning ("while a stream is captured ... the capture is
// invalidated"). On that path no capture began; on the other path build() ended it. With the
// begin call unchecked it is silent (checking only the end call is silent too).
// From NVIDIA/cutlass examples/65_distributed_gemm/65_distributed_gemm.cu:690
// (DistGemm::initialize -> construct_graph, include/cutlass/experimental/distributed/device/
// dist_gemm_universal_wrapper.hpp:521), and the same capture in the cudaMemcpy of
// tools/util/include/cutlass/util/device_memory.h:103 reached after it.
#include <cuda_runtime.h>
__global__ void k(float *d) { d[threadIdx.x] *= 2.f; }
int build(cudaStream_t s, cudaGraph_t *g, float *d) {
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) return 1;
  k<<<1, 32, 0, s>>>(d);
  cudaStreamEndCapture(s, g);
  return 0;
}
void run(float *d) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaGraph_t g;
  build(s, &g, d);
  cudaDeviceSynchronize();  // warning: capture-breaking-call; no capture is open here
}
