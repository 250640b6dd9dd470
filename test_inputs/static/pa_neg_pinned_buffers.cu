// Tiled matrix transpose with page-locked staging: the input comes from cudaMallocHost, the
// output from cudaHostAlloc(cudaHostAllocPortable); every tile copy addresses them through
// pointer arithmetic and casts -> pinned host memory, no findings.
#include <algorithm>
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

__global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[size_t(y) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < rows && y < cols) out[size_t(y) * rows + x] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? atoi(argv[1]) : 8192, cols = 4096, band = 1024;
  const size_t bytes = size_t(rows) * cols * sizeof(float);
  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaMallocHost(&h_in, bytes));
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_out), bytes, cudaHostAllocPortable));
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  for (size_t i = 0; i < size_t(rows) * cols; ++i) h_in[i] = float(i % 1000);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int r0 = 0; r0 < rows; r0 += band) {
    const int nr = std::min(band, rows - r0);
    const float* src = h_in + size_t(r0) * cols;
    CUDA_CHECK(cudaMemcpyAsync(d_in + size_t(r0) * cols, (const void*)src, size_t(nr) * cols * sizeof(float), cudaMemcpyHostToDevice, stream));
  }
  transpose_tile<<<dim3(cols / 32, (rows + 31) / 32), dim3(32, 32), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK(cudaGetLastError());
  char* out_bytes = reinterpret_cast<char*>(h_out);
  CUDA_CHECK(cudaMemcpyAsync(out_bytes, d_out, bytes / 2, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(&out_bytes[bytes / 2], reinterpret_cast<char*>(d_out) + bytes / 2, bytes - bytes / 2, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  printf("out[1] = %f\n", h_out[1]);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
