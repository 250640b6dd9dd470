// Frame differencing with unified addressing: cudaMemcpyDefault makes the runtime infer the
// direction. The malloc'd host frame (upload) and the malloc'd result (readback) are the host
// sides -> two warnings; the cudaMemcpyDefault between two cudaMalloc buffers is silent.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void abs_diff(const float* cur, const float* prev, float* diff, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) diff[i] = fabsf(cur[i] - prev[i]);
}

// Grabs `frames` synthetic frames of w*h pixels and returns the motion energy of the last one.
double motion_energy(int w, int h, int frames) {
  const int n = w * h;
  const size_t bytes = size_t(n) * sizeof(float);
  float* h_frame = static_cast<float*>(malloc(bytes));
  float* h_diff = static_cast<float*>(malloc(bytes));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_cur, *d_prev, *d_diff;
  CUDA_CHECK(cudaMalloc(&d_cur, bytes));
  CUDA_CHECK(cudaMalloc(&d_prev, bytes));
  CUDA_CHECK(cudaMalloc(&d_diff, bytes));
  CUDA_CHECK(cudaMemsetAsync(d_prev, 0, bytes, stream));

  for (int f = 0; f < frames; ++f) {
    // a pageable upload is staged before cudaMemcpyAsync returns, so h_frame may be reused
    for (int i = 0; i < n; ++i) h_frame[i] = float((i * 7 + f * 13) % 256);
    CUDA_CHECK(cudaMemcpyAsync(d_cur, h_frame, bytes, cudaMemcpyDefault, stream));  // expect: warning syncwatch-pageable-async-copy
    abs_diff<<<(n + 255) / 256, 256, 0, stream>>>(d_cur, d_prev, d_diff, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(d_prev, d_cur, bytes, cudaMemcpyDefault, stream));
  }
  CUDA_CHECK(cudaMemcpyAsync(h_diff, d_diff, bytes, cudaMemcpyDefault, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double energy = 0.0;
  for (int i = 0; i < n; ++i) energy += h_diff[i];
  CUDA_CHECK(cudaFree(d_cur));
  CUDA_CHECK(cudaFree(d_prev));
  CUDA_CHECK(cudaFree(d_diff));
  CUDA_CHECK(cudaStreamDestroy(stream));
  free(h_frame);
  free(h_diff);
  return energy;
}
