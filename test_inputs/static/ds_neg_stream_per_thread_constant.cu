// Multi-threaded tokenizer-to-embedding lookup where every thread issues its work
// on cudaStreamPerThread explicitly (the per-thread default stream is not the
// legacy stream) -> no findings.
#include <cstdio>
#include <cstdlib>
#include <thread>
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

__global__ void gather_rows(const float* table, const int* ids, float* out, int dim, int count) {
  int r = blockIdx.x;
  if (r >= count) return;
  for (int c = threadIdx.x; c < dim; c += blockDim.x)
    out[size_t(r) * dim + c] = table[size_t(ids[r]) * dim + c];
}

void embed(const float* d_table, const int* h_ids, float* h_out, int dim, int count) {
  cudaStream_t s = cudaStreamPerThread;
  int* d_ids;
  float* d_out;
  CUDA_CHECK(cudaMallocAsync(&d_ids, count * sizeof(int), s));
  CUDA_CHECK(cudaMallocAsync(&d_out, size_t(count) * dim * sizeof(float), s));
  CUDA_CHECK(cudaMemcpyAsync(d_ids, h_ids, count * sizeof(int), cudaMemcpyHostToDevice, s));  // expect: warning syncwatch-pageable-async-copy
  gather_rows<<<count, 128, 0, cudaStreamPerThread>>>(d_table, d_ids, d_out, dim, count);
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, size_t(count) * dim * sizeof(float),  // expect: warning syncwatch-pageable-async-copy
                             cudaMemcpyDeviceToHost, cudaStreamPerThread));
  CUDA_CHECK(cudaFreeAsync(d_ids, s));
  CUDA_CHECK(cudaFreeAsync(d_out, s));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

int main() {
  const int vocab = 32000, dim = 256, count = 64;
  float* d_table;
  CUDA_CHECK(cudaMalloc(&d_table, size_t(vocab) * dim * sizeof(float)));
  std::vector<int> ids(count);
  for (int i = 0; i < count; ++i) ids[i] = (i * 7919) % vocab;
  std::vector<std::vector<float>> outs(4, std::vector<float>(size_t(count) * dim));
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] { embed(d_table, ids.data(), outs[t].data(), dim, count); });
  for (auto& th : pool) th.join();
  CUDA_CHECK(cudaFree(d_table));
  printf("done\n");
  return 0;
}
