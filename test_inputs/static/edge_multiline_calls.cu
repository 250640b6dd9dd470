// Separable blur with calls split over several lines: a written stream argument is
// reported on the line that holds it; an omitted stream (launch or API) on the line
// of the kernel / API name. The file has a created stream -> four warnings.
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

__global__ void blur_h(const float* in, float* out, int w, int h, int r) {
  extern __shared__ float row[];
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w) row[threadIdx.x] = in[y * w + x];
  __syncthreads();
  if (x >= w) return;
  float acc = 0.f;
  for (int k = -r; k <= r; ++k) acc += in[y * w + min(max(x + k, 0), w - 1)];
  out[y * w + x] = acc / (2 * r + 1);
}

__global__ void blur_v(const float* in, float* out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w) return;
  float acc = 0.f;
  for (int k = -r; k <= r; ++k) acc += in[min(max(y + k, 0), h - 1) * w + x];
  out[y * w + x] = acc / (2 * r + 1);
}

void separable_blur(const float* h_in, float* h_out, int w, int h, int radius) {
  const size_t bytes = size_t(w) * h * sizeof(float);
  cudaStream_t upload;
  CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
  float *d_in, *d_tmp, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_tmp, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice,
                             upload));
  CUDA_CHECK(cudaStreamSynchronize(upload));
  CUDA_CHECK(cudaMemsetAsync(d_tmp, 0, bytes,
                             nullptr));  // expect: warning syncwatch-default-stream

  dim3 block(128), grid((w + 127) / 128, h);
  blur_h<<<grid, block,
           block.x * sizeof(float), 0>>>(d_in, d_tmp, w, h, radius);  // expect: warning syncwatch-default-stream
  blur_v<<<grid,  // expect: warning syncwatch-default-stream
           block>>>(d_tmp, d_out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy2DAsync(h_out, w * sizeof(float),  // expect: warning syncwatch-default-stream
                               d_out, w * sizeof(float),
                               w * sizeof(float), h,
                               cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_tmp));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaStreamDestroy(upload));
}
