// 2D convolution pipeline where launches spell the dynamic shared-memory size as 0
// (literal, commented, and via a named constant) before a real stream argument.
// A 0 in the smem slot is not a stream -> no findings.
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

constexpr size_t kNoDynamicSmem = 0;

__global__ void conv3x3(const float* in, float* out, int w, int h, const float* k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) acc += k[(dy + 1) * 3 + dx + 1] * in[(y + dy) * w + x + dx];
  out[y * w + x] = acc;
}

__global__ void add_bias_relu(float* x, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i] + b, 0.f);
}

void conv_block(const float* d_in, float* d_tmp, float* d_out, const float* d_k1,
                const float* d_k2, int w, int h, cudaStream_t stream) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  const int n = w * h;
  conv3x3<<<grid, block, 0, stream>>>(d_in, d_tmp, w, h, d_k1);
  add_bias_relu<<<(n + 255) / 256, 256, 0 /* no dynamic smem */, stream>>>(d_tmp, n, 0.1f);
  conv3x3<<<grid, block, kNoDynamicSmem, stream>>>(d_tmp, d_out, w, h, d_k2);
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  const int w = 512, h = 512;
  float *a, *b, *c, *k;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMallocAsync(&a, w * h * sizeof(float), s));
  CUDA_CHECK(cudaMallocAsync(&b, w * h * sizeof(float), s));
  CUDA_CHECK(cudaMallocAsync(&c, w * h * sizeof(float), s));
  CUDA_CHECK(cudaMallocAsync(&k, 9 * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(a, 0, w * h * sizeof(float), s));
  CUDA_CHECK(cudaMemsetAsync(k, 0, 9 * sizeof(float), s));
  conv_block(a, b, c, k, k, w, h, s);
  CUDA_CHECK(cudaFreeAsync(a, s));
  CUDA_CHECK(cudaFreeAsync(b, s));
  CUDA_CHECK(cudaFreeAsync(c, s));
  CUDA_CHECK(cudaFreeAsync(k, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
