// A round-robin StreamPool creates its streams with cudaStreamCreate (blocking),
// and the profiling helper records events with the stream omitted / written as 0.
// Expect one blocking-stream warning (creation) and two default-stream warnings (event records).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

class StreamPool {
 public:
  explicit StreamPool(int n) : streams_(n) {
    for (auto& s : streams_) CUDA_CHECK(cudaStreamCreate(&s));  // expect: warning syncwatch-blocking-stream
  }
  ~StreamPool() {
    for (auto& s : streams_) cudaStreamDestroy(s);
  }
  cudaStream_t next() { return streams_[next_++ % streams_.size()]; }
  void sync_all() {
    for (auto& s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
  }

 private:
  std::vector<cudaStream_t> streams_;
  size_t next_ = 0;
};

__global__ void layer_norm_rows(float* x, int cols) {
  float* row = x + size_t(blockIdx.x) * cols;
  float mean = 0.f, var = 0.f;
  for (int c = 0; c < cols; ++c) mean += row[c];
  mean /= cols;
  for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
  float inv = rsqrtf(var / cols + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] = (row[c] - mean) * inv;
}

float timed_layer_norm(StreamPool& pool, float* d_x, int rows, int cols, int chunks) {
  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  CUDA_CHECK(cudaEventRecord(t0));  // expect: warning syncwatch-default-stream
  const int per = rows / chunks;
  for (int c = 0; c < chunks; ++c)
    layer_norm_rows<<<per, 128, 0, pool.next()>>>(d_x + size_t(c) * per * cols, cols);
  CUDA_CHECK(cudaEventRecord(t1, 0));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaEventSynchronize(t1));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  CUDA_CHECK(cudaEventDestroy(t0));
  CUDA_CHECK(cudaEventDestroy(t1));
  return ms;
}
