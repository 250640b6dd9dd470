// Calls wrapped in macros: CUDA_CHECK(cudaMemcpyAsync(...)) with the stream omitted,
// CUDA_CHECK(cudaEventRecord(ev)), and a user UPLOAD macro whose body hard-codes
// stream 0. All are reported at the macro use line -> three warnings (the file has a stream).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

#define UPLOAD(dst, src, bytes) \
  CUDA_CHECK(cudaMemcpyAsync((dst), (src), (bytes), cudaMemcpyHostToDevice, 0))
#define UPLOAD_ON(dst, src, bytes, stream) \
  CUDA_CHECK(cudaMemcpyAsync((dst), (src), (bytes), cudaMemcpyHostToDevice, (stream)))

__global__ void embed_positions(float* x, const float* pos, int seq, int dim) {
  int t = blockIdx.x, d = threadIdx.x;
  if (t < seq && d < dim) x[t * dim + d] += pos[t * dim + d];
}

void prepare_inputs(float* d_x, float* d_pos, const float* h_x, const float* h_pos,
                    const float* h_extra, float* d_extra, int seq, int dim) {
  const size_t bytes = size_t(seq) * dim * sizeof(float);
  cudaStream_t s;
  cudaEvent_t uploaded;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice));  // expect: warning syncwatch-default-stream
  UPLOAD(d_pos, h_pos, bytes);  // expect: warning syncwatch-default-stream
  UPLOAD_ON(d_extra, h_extra, bytes, s);
  CUDA_CHECK(cudaEventRecord(uploaded));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaStreamWaitEvent(s, uploaded, 0));

  embed_positions<<<seq, dim, 0, s>>>(d_x, d_pos, seq, dim);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaEventDestroy(uploaded));
  CUDA_CHECK(cudaStreamDestroy(s));
}
