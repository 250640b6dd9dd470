// Loader creates its stream with cudaStreamCreateWithFlags(&s, cudaStreamDefault)
// (still blocking) and one augmentation kernel is launched without a stream.
// Expect a default-stream warning on the launch and a blocking-stream warning on the creation.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK_CUDA(expr)                                                     \
  do {                                                                       \
    cudaError_t _e = (expr);                                                 \
    if (_e != cudaSuccess) {                                                 \
      fprintf(stderr, "[cuda] %s (%s:%d)\n", cudaGetErrorString(_e),         \
              __FILE__, __LINE__);                                           \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

__global__ void random_flip(float* imgs, int batch, int w, int h, unsigned seed) {
  int b = blockIdx.z, y = blockIdx.y, x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w / 2) return;
  unsigned r = (seed ^ (b * 2654435761u)) >> 31;
  if (!r) return;
  float* row = imgs + (size_t(b) * h + y) * w;
  float t = row[x]; row[x] = row[w - 1 - x]; row[w - 1 - x] = t;
}

__global__ void normalize_imagenet(float* imgs, size_t n, float mean, float stdv) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) imgs[i] = (imgs[i] - mean) / stdv;
}

struct Loader {
  cudaStream_t stream;
  float* d_batch;
  int batch, w, h;

  void init(int b, int width, int height) {
    batch = b; w = width; h = height;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));  // expect: warning syncwatch-blocking-stream
    CHECK_CUDA(cudaMalloc(&d_batch, size_t(batch) * w * h * sizeof(float)));
  }

  void augment(const float* h_batch, unsigned seed) {
    size_t n = size_t(batch) * w * h;
    CHECK_CUDA(cudaMemcpyAsync(d_batch, h_batch, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    random_flip<<<dim3((w / 2 + 127) / 128, h, batch), 128, 0, stream>>>(d_batch, batch, w, h, seed);
    normalize_imagenet<<<(n + 255) / 256, 256>>>(d_batch, n, 0.485f, 0.229f);  // expect: warning syncwatch-default-stream
    CHECK_CUDA(cudaGetLastError());
  }

  void destroy() {
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaFree(d_batch));
    CHECK_CUDA(cudaStreamDestroy(stream));
  }
};
