// FP class (notes): a synchronous DtoH cudaMemcpy right after cudaStreamSynchronize(stream) of
// the function's only stream gets a syncwatch-sync-memcpy note ("synchronous ... in code that
// uses streams", "'stream' is the only stream here"). The stream was just drained: the copy
// has no work of this function to wait for, and the rule page says copies right after a
// drain are silent. (Same with `cudaStream_t stream = nullptr`.) From NVIDIA/cutlass
// tools/util/include/cutlass/util/reference/device/tensor_reduce.h:238 and :293
// (TensorTransformReduce: finalize kernel on `stream`, cudaStreamSynchronize(stream), then the
// one-scalar result copied back).
#include <cuda_runtime.h>
__global__ void k(float *d) { d[threadIdx.x] *= 2.f; }
float reduce(float *d, cudaStream_t stream) {
  k<<<1, 32, 0, stream>>>(d);
  cudaStreamSynchronize(stream);
  float r;
  cudaMemcpy(&r, d, sizeof(r), cudaMemcpyDeviceToHost);  // note: sync-memcpy; nothing in flight
  return r;
}
