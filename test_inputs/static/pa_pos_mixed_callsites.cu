// Weight loader helper called twice: once with a cudaMallocHost buffer and once with a
// std::vector's data(). The parameter receives pageable memory at one call site only, so the
// copy inside upload_tensor() may be pageable -> a note, not a warning (issue 41: the path is
// not certain).
#include <cstdio>
#include <cstdlib>
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

__global__ void scale_inplace(float* w, size_t n, float s) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) w[i] *= s;
}

static void upload_tensor(float* d_dst, const float* h_src, size_t count, float scale, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src, count * sizeof(float), cudaMemcpyHostToDevice, s));  // expect: note syncwatch-pageable-async-copy
  scale_inplace<<<unsigned((count + 255) / 256), 256, 0, s>>>(d_dst, count, scale);
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  const size_t n_embed = argc > 1 ? size_t(atol(argv[1])) : size_t(1) << 22;
  const size_t n_bias = 4096;
  float* h_embed;
  float *d_embed, *d_bias;
  CUDA_CHECK(cudaMallocHost(&h_embed, n_embed * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_embed, n_embed * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_bias, n_bias * sizeof(float)));
  std::vector<float> bias(n_bias, 0.01f);
  for (size_t i = 0; i < n_embed; ++i) h_embed[i] = float(i % 7) - 3.f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  upload_tensor(d_embed, h_embed, n_embed, 0.125f, stream);
  upload_tensor(d_bias, bias.data(), bias.size(), 1.f, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  CUDA_CHECK(cudaFree(d_embed));
  CUDA_CHECK(cudaFree(d_bias));
  CUDA_CHECK(cudaFreeHost(h_embed));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
