// clang-flags: -DCUDA_API_PER_THREAD_DEFAULT_STREAM
// nvcc-flags: --default-stream per-thread
// Per-thread build with a cudaStreamCreate (blocking) stream, synchronous cudaMemcpy
// and stream-less launches: none of it touches the legacy stream -> no findings.
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

__global__ void decode_yuv(const unsigned char* y, const unsigned char* uv, uchar4* rgb, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (x >= w || r >= h) return;
  float Y = y[r * w + x], U = uv[(r / 2) * w + (x & ~1)] - 128.f, V = uv[(r / 2) * w + (x | 1)] - 128.f;
  rgb[r * w + x] = make_uchar4((unsigned char)fminf(fmaxf(Y + 1.402f * V, 0.f), 255.f),
                               (unsigned char)fminf(fmaxf(Y - 0.344f * U - 0.714f * V, 0.f), 255.f),
                               (unsigned char)fminf(fmaxf(Y + 1.772f * U, 0.f), 255.f), 255);
}

__global__ void histogram_luma(const unsigned char* y, int n, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[y[i]], 1u);
}

void decode_frame(const unsigned char* h_nv12, uchar4* h_rgb, int w, int h) {
  cudaStream_t stats;
  CUDA_CHECK(cudaStreamCreate(&stats));
  unsigned char* d_nv12;
  uchar4* d_rgb;
  unsigned int* d_bins;
  CUDA_CHECK(cudaMalloc(&d_nv12, size_t(w) * h * 3 / 2));
  CUDA_CHECK(cudaMalloc(&d_rgb, size_t(w) * h * sizeof(uchar4)));
  CUDA_CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));  // expect: note syncwatch-sync-memcpy
  CUDA_CHECK(cudaMemcpy(d_nv12, h_nv12, size_t(w) * h * 3 / 2, cudaMemcpyHostToDevice));  // expect: note syncwatch-sync-memcpy (only the memset before it: the callers' work)

  decode_yuv<<<dim3((w + 127) / 128, h), 128>>>(d_nv12, d_nv12 + size_t(w) * h, d_rgb, w, h);
  histogram_luma<<<(w * h + 255) / 256, 256, 0, stats>>>(d_nv12, w * h, d_bins);
  CUDA_CHECK(cudaMemcpy(h_rgb, d_rgb, size_t(w) * h * sizeof(uchar4), cudaMemcpyDeviceToHost));  // expect: warning syncwatch-sync-memcpy
  CUDA_CHECK(cudaStreamSynchronize(stats));

  CUDA_CHECK(cudaFree(d_nv12));
  CUDA_CHECK(cudaFree(d_rgb));
  CUDA_CHECK(cudaFree(d_bins));
  CUDA_CHECK(cudaStreamDestroy(stats));
}
