// Latency-critical inference next to background work: the high-priority stream is
// created with cudaStreamDefault flags (blocking), the low-priority one is non-blocking.
// Frames are uploaded with synchronous cudaMemcpy2D -> one blocking-stream warning (high-priority creation only).
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

__global__ void detect(const unsigned char* img, size_t pitch, int w, int h, int* hits) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h && img[y * pitch + x] > 240) atomicAdd(hits, 1);
}

__global__ void background_stats(const unsigned char* img, size_t pitch, int w, int h,
                                 unsigned long long* sum) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) atomicAdd(sum, (unsigned long long)img[y * pitch + x]);
}

int run(const unsigned char* h_frame, int w, int h) {
  int least = 0, greatest = 0;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t hi, lo;
  CUDA_CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamDefault, greatest));  // expect: warning syncwatch-blocking-stream
  CUDA_CHECK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));

  unsigned char* d_img;
  size_t pitch;
  int* d_hits;
  unsigned long long* d_sum;
  CUDA_CHECK(cudaMallocPitch(&d_img, &pitch, w, h));
  CUDA_CHECK(cudaMalloc(&d_hits, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemsetAsync(d_hits, 0, sizeof(int), hi));
  CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(unsigned long long), lo));
  CUDA_CHECK(cudaMemcpy2D(d_img, pitch, h_frame, w, w, h, cudaMemcpyHostToDevice));  // expect: warning syncwatch-sync-memcpy

  dim3 grid((w + 255) / 256, h);
  detect<<<grid, 256, 0, hi>>>(d_img, pitch, w, h, d_hits);
  background_stats<<<grid, 256, 0, lo>>>(d_img, pitch, w, h, d_sum);
  int hits = 0;
  CUDA_CHECK(cudaMemcpyAsync(&hits, d_hits, sizeof(int), cudaMemcpyDeviceToHost, hi));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(hi));
  CUDA_CHECK(cudaStreamSynchronize(lo));

  CUDA_CHECK(cudaFree(d_img));
  CUDA_CHECK(cudaFree(d_hits));
  CUDA_CHECK(cudaFree(d_sum));
  CUDA_CHECK(cudaStreamDestroy(hi));
  CUDA_CHECK(cudaStreamDestroy(lo));
  return hits;
}
