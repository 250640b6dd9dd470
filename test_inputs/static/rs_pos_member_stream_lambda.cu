// A pipeline class that owns a blocking stream (member) and runs its steps from a lambda:
// each step syncs the member stream and then reads the counter back with cudaMemcpy, which
// already waits for the stream's work.
#include <cuda_runtime.h>

__global__ void count_hits(const int* keys, int n, int key, int* hits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keys[i] == key) atomicAdd(hits, 1);
}

class Matcher {
public:
  Matcher() { cudaStreamCreateWithFlags(&stream_, cudaStreamDefault); }  // expect: warning syncwatch-blocking-stream
  ~Matcher() { cudaStreamDestroy(stream_); }

  int run(const int* d_keys, int n, const int* queries, int q, int* d_hits) {
    int total = 0;
    auto step = [&](int key) {
      int hits = 0;
      cudaMemsetAsync(d_hits, 0, sizeof(int), stream_);
      count_hits<<<(n + 255) / 256, 256, 0, stream_>>>(d_keys, n, key, d_hits);
      cudaStreamSynchronize(stream_);  // expect: warning syncwatch-redundant-sync
      cudaMemcpy(&hits, d_hits, sizeof(int), cudaMemcpyDeviceToHost);  // expect: note syncwatch-sync-memcpy
      return hits;
    };
    for (int i = 0; i < q; ++i)
      total += step(queries[i]);
    return total;
  }

private:
  cudaStream_t stream_;
};
