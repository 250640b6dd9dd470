#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace imaging {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> pixels;  // pageable host memory
};

// Resizes every image of the batch on `stream`; returns the mean of the outputs.
double resizeBatch(const std::vector<Image> &batch, int out_w, int out_h, cudaStream_t stream);

// Converts RGB to grey in place on the device; the launch is the caller's.
void toGrey(unsigned char *d_rgb, int pixels, cudaStream_t stream);

}  // namespace imaging
