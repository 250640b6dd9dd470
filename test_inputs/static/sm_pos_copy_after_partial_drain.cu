// The look-alikes of sm_neg_copy_after_stream_param_sync.cu that keep their finding. A
// helper given two streams drains only one before its synchronous copy: the other may still
// run the caller's work, and the copy on the legacy stream waits for it (a note: the callers
// are elsewhere). A helper that launches again after its drain has its own work in flight at
// the copy (a warning).
#include <cuda_runtime.h>

__global__ void finalize(const float *partials, int n, float *out) {
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += partials[i];
  atomicAdd(out, s);
}

float reduce_two(const float *a, const float *b, int n, float *ws, cudaStream_t compute, cudaStream_t copy) {
  finalize<<<1, 256, 0, compute>>>(a, n, ws);
  cudaStreamSynchronize(compute);
  float r = 0.f;
  cudaMemcpy(&r, ws, sizeof(r), cudaMemcpyDeviceToHost);  // expect: note syncwatch-sync-memcpy
  return r;
}

float reduce_then_launch(const float *a, int n, float *ws, cudaStream_t stream) {
  cudaStreamSynchronize(stream);
  finalize<<<1, 256, 0, stream>>>(a, n, ws);
  float r = 0.f;
  cudaMemcpy(&r, ws, sizeof(float), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  return r;
}
