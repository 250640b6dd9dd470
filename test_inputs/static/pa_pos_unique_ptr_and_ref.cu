// Embedding lookup: token ids are uploaded from a std::vector reached through a reference
// alias; logits come back into std::make_unique<float[]> storage and row norms into a
// unique_ptr<float[]>(new float[]) -> three pageable-async-copy warnings.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void gather_rows(const int* ids, const float* table, float* out, float* norms, int n, int dim) {
  int t = blockIdx.x;
  if (t >= n) return;
  float acc = 0.f;
  for (int d = threadIdx.x; d < dim; d += blockDim.x) {
    float v = table[size_t(ids[t]) * dim + d];
    out[size_t(t) * dim + d] = v;
    acc += v * v;
  }
  atomicAdd(&norms[t], acc);
}

float embed(const float* d_table, int vocab, int dim, int n_tokens, cudaStream_t stream) {
  std::vector<int> tokens(n_tokens);
  for (int i = 0; i < n_tokens; ++i) tokens[i] = (i * 7919) % vocab;
  std::vector<int>& ids = tokens;
  auto h_out = std::make_unique<float[]>(size_t(n_tokens) * dim);
  std::unique_ptr<float[]> h_norms(new float[n_tokens]);

  int* d_ids;
  float *d_out, *d_norms;
  CUDA_CHECK(cudaMalloc(&d_ids, n_tokens * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_out, size_t(n_tokens) * dim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_norms, n_tokens * sizeof(float)));

  CUDA_CHECK(cudaMemcpyAsync(d_ids, ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaMemsetAsync(d_norms, 0, n_tokens * sizeof(float), stream));
  gather_rows<<<n_tokens, 128, 0, stream>>>(d_ids, d_table, d_out, d_norms, n_tokens, dim);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out.get(), d_out, size_t(n_tokens) * dim * sizeof(float), cudaMemcpyDeviceToHost, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaMemcpyAsync(h_norms.get(), d_norms, n_tokens * sizeof(float), cudaMemcpyDeviceToHost, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  float total = 0.f;
  for (int t = 0; t < n_tokens; ++t) total += std::sqrt(h_norms[t]) + 0.f * h_out[size_t(t) * dim];
  CUDA_CHECK(cudaFree(d_ids));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_norms));
  return total / n_tokens;
}

int main() {
  const int vocab = 32000, dim = 256;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* d_table;
  CUDA_CHECK(cudaMalloc(&d_table, size_t(vocab) * dim * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_table, 0, size_t(vocab) * dim * sizeof(float), stream));
  printf("mean norm %f\n", embed(d_table, vocab, dim, 4096, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaFree(d_table));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
