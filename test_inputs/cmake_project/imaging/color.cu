// RGB -> grey. The caller owns the stream; a debugging path launches on the legacy stream.
#include "imaging/resize.h"

#include "common/check.h"

#if __CUDACC__
#define IMAGING_HD __host__ __device__
#else
#define IMAGING_HD
#endif

namespace imaging {

IMAGING_HD inline unsigned char luma(unsigned char r, unsigned char g, unsigned char b) {
  return static_cast<unsigned char>(0.299f * r + 0.587f * g + 0.114f * b);
}

__global__ void rgb_to_grey(unsigned char *rgb, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) rgb[i] = luma(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
}

void toGrey(unsigned char *d_rgb, int pixels, cudaStream_t stream) {
  const int blocks = (pixels + 255) / 256;
  if (std::getenv("IMAGING_SERIAL_DEBUG")) {
    rgb_to_grey<<<blocks, 256>>>(d_rgb, pixels);  // expect: warning syncwatch-default-stream
    CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  rgb_to_grey<<<blocks, 256, 0, stream>>>(d_rgb, pixels);
}

}  // namespace imaging
