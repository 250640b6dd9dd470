// Nearest-neighbour resize of an image batch. Built with --extended-lambda,
// --expt-relaxed-constexpr, -lineinfo and --use_fast_math (see CMakeLists.txt).
#include "imaging/resize.h"

#include "common/check.h"

#include <algorithm>
#include <cstdlib>

namespace imaging {

constexpr int kBlock = 16;

__global__ void resize_nearest(const unsigned char *src, int sw, int sh, unsigned char *dst,
                               int dw, int dh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < dw && y < dh)
    dst[y * dw + x] = src[(y * sh / dh) * sw + x * sw / dw];
}

template <typename F>
__global__ void for_each_pixel(unsigned char *p, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = f(p[i]);
}

double resizeBatch(const std::vector<Image> &batch, int out_w, int out_h, cudaStream_t stream) {
  // Host-side max() of two ints: nvcc's headers provide it, plain clang's do not.
  int max_w = 0, max_h = 0;
  for (const Image &im : batch) {
    max_w = max(max_w, im.width);
    max_h = max(max_h, im.height);
  }
  unsigned char *d_src = nullptr, *d_dst = nullptr;
  CUDA_CHECK(cudaMalloc(&d_src, size_t(max_w) * max_h));
  CUDA_CHECK(cudaMalloc(&d_dst, size_t(out_w) * out_h));
  unsigned char *h_out = static_cast<unsigned char *>(std::malloc(size_t(out_w) * out_h));
  double sum = 0;
  for (const Image &im : batch) {
    CUDA_CHECK(cudaMemcpyAsync(d_src, im.pixels.data(), im.pixels.size(),  // expect: warning syncwatch-pageable-async-copy
                               cudaMemcpyHostToDevice, stream));
    dim3 block(kBlock, kBlock), grid((out_w + kBlock - 1) / kBlock, (out_h + kBlock - 1) / kBlock);
    resize_nearest<<<grid, block, 0, stream>>>(d_src, im.width, im.height, d_dst, out_w, out_h);
    const float gain = 1.5f;
    for_each_pixel<<<(out_w * out_h + 255) / 256, 256, 0, stream>>>(
        d_dst, out_w * out_h,
        [=] __device__(unsigned char v) { return static_cast<unsigned char>(min(255.f, v * gain)); });
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_dst, size_t(out_w) * out_h,  // expect: warning syncwatch-pageable-async-copy
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // silent: the pageable copy before it already waited
    for (int i = 0; i < out_w * out_h; ++i) sum += h_out[i];
  }
  std::free(h_out);
  CUDA_CHECK(cudaFree(d_src));
  CUDA_CHECK(cudaFree(d_dst));
  return batch.empty() ? 0.0 : sum / (double(batch.size()) * out_w * out_h);
}

}  // namespace imaging
