// Byte-level corpus statistics: the text is held in a std::string and uploaded with
// cudaMemcpyAsync(d_text, corpus.data(), corpus.size(), ...) -> one pageable-async-copy
// warning; the byte counts come back into cudaMallocHost memory (silent).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void count_bytes(const char* text, size_t n, unsigned long long* counts) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&counts[(unsigned char)text[i]], 1ull);
}

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  std::ifstream in(argv[1], std::ios::binary);
  std::string corpus((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (corpus.empty()) return 1;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  char* d_text;
  unsigned long long *d_counts, *h_counts;
  CUDA_CHECK(cudaMalloc(&d_text, corpus.size()));
  CUDA_CHECK(cudaMalloc(&d_counts, 256 * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMallocHost(&h_counts, 256 * sizeof(unsigned long long)));

  CUDA_CHECK(cudaMemcpyAsync(d_text, corpus.data(), corpus.size(), cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaMemsetAsync(d_counts, 0, 256 * sizeof(unsigned long long), stream));
  count_bytes<<<264, 256, 0, stream>>>(d_text, corpus.size(), d_counts);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, 256 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  for (int c = 'a'; c <= 'z'; ++c) printf("%c %llu\n", c, h_counts[c]);
  CUDA_CHECK(cudaFree(d_text));
  CUDA_CHECK(cudaFree(d_counts));
  CUDA_CHECK(cudaFreeHost(h_counts));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
