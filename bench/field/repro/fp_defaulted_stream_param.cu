// FP class: a `cudaStream_t stream = nullptr` parameter that no caller sets makes the unit
// "use streams". So a synchronous cudaMemcpy after the launch gets a syncwatch-sync-memcpy
// warning (the rule is silent in code without streams: here every piece of work is on the
// legacy stream, there is no concurrency to lose), and the stream-less cudaEventRecord is a
// syncwatch-default-stream WARNING where the rule's page says a unit with no other stream
// gets a note. (The launch itself, on the legacy stream through the defaulted argument, is
// not reported at all.) From NVIDIA/cutlass: examples/00_basic_gemm/basic_gemm.cu:397,
// 31_basic_syrk, 32_basic_trmm, 05_batched_gemm, and most example default-stream warnings
// (e.g. examples/13_two_tensor_op_fusion/b2b_gemm_run.h:639): CUTLASS's operators take
// `cudaStream_t stream = nullptr` (include/cutlass/gemm/device/gemm.h) and the examples pass none.
#include <cuda_runtime.h>
__global__ void k(float *d) { d[threadIdx.x] *= 2.f; }
void launch(float *d, cudaStream_t stream = nullptr) { k<<<1, 32, 0, stream>>>(d); }
void run(float *d, float *h) {
  launch(d);
  cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost);  // warning: sync-memcpy; should be silent
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e);                             // default-stream warning; should be a note
}
