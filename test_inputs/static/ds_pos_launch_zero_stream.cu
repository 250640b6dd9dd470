// Per-worker frame preprocessing: allocations and copies use cudaStreamPerThread,
// but the resize kernel is launched with stream 0 (legacy default stream).
// Expect one warning at the stream argument (cudaStreamPerThread counts as another stream).
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, \
              __LINE__);                                                    \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

__global__ void resize_nearest(const unsigned char* src, int sw, int sh,
                               unsigned char* dst, int dw, int dh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh) return;
  int sx = x * sw / dw, sy = y * sh / dh;
  dst[y * dw + x] = src[sy * sw + sx];
}

void preprocess_frame(const unsigned char* h_src, unsigned char* h_dst,
                      int sw, int sh, int dw, int dh) {
  unsigned char* d_src = nullptr;
  unsigned char* d_dst = nullptr;
  CUDA_CHECK(cudaMallocAsync(&d_src, size_t(sw) * sh, cudaStreamPerThread));
  CUDA_CHECK(cudaMallocAsync(&d_dst, size_t(dw) * dh, cudaStreamPerThread));
  CUDA_CHECK(cudaMemcpyAsync(d_src, h_src, size_t(sw) * sh,  // expect: warning syncwatch-pageable-async-copy
                             cudaMemcpyHostToDevice, cudaStreamPerThread));
  dim3 block(16, 16);
  dim3 grid((dw + 15) / 16, (dh + 15) / 16);
  resize_nearest<<<grid, block, 0, 0>>>(d_src, sw, sh, d_dst, dw, dh);  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_dst, d_dst, size_t(dw) * dh,  // expect: warning syncwatch-pageable-async-copy
                             cudaMemcpyDeviceToHost, cudaStreamPerThread));
  CUDA_CHECK(cudaFreeAsync(d_src, cudaStreamPerThread));
  CUDA_CHECK(cudaFreeAsync(d_dst, cudaStreamPerThread));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

int main() {
  const int sw = 1920, sh = 1080, dw = 640, dh = 360;
  std::vector<unsigned char> src(size_t(sw) * sh, 128);
  std::vector<std::vector<unsigned char>> out(4, std::vector<unsigned char>(size_t(dw) * dh));
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t)
    workers.emplace_back([&, t] { preprocess_frame(src.data(), out[t].data(), sw, sh, dw, dh); });
  for (auto& w : workers) w.join();
  printf("out[0][0] = %d\n", out[0][0]);
  return 0;
}
