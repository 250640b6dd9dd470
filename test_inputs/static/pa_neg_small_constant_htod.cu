// Small fixed-size uploads from pageable memory: a parameter struct (sizeof), a 64-tap
// filter from a static array (sizeof) and a 16384-float LUT vector (exactly 65536 bytes, a
// constant) are staged and return at once -> below the threshold, no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct FilterParams {
  int width, height, taps;
  float gain;
};

constexpr int kTaps = 64;
constexpr int kLutSize = 16384;
static float h_taps[kTaps];

__global__ void fir_rows(const FilterParams* p, const float* taps, const float* lut, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= p->width || y >= p->height) return;
  float acc = 0.f;
  for (int k = 0; k < p->taps; ++k) acc += taps[k] * in[size_t(y) * p->width + min(x + k, p->width - 1)];
  int idx = min(max(int(acc * p->gain), 0), kLutSize - 1);
  out[size_t(y) * p->width + x] = lut[idx];
}

void configure_and_run(FilterParams* d_params, float* d_taps, float* d_lut, const float* d_in, float* d_out,
                       int w, int h, float gain, cudaStream_t stream) {
  FilterParams params{w, h, kTaps, gain};
  for (int k = 0; k < kTaps; ++k) h_taps[k] = 1.f / kTaps;
  std::vector<float> lut(kLutSize);
  for (int i = 0; i < kLutSize; ++i) lut[i] = float(i) / kLutSize;

  CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(FilterParams), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_taps, h_taps, sizeof(h_taps), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_lut, lut.data(), kLutSize * sizeof(float), cudaMemcpyHostToDevice, stream));
  fir_rows<<<dim3((w + 127) / 128, h), 128, 0, stream>>>(d_params, d_taps, d_lut, d_in, d_out);
  CUDA_CHECK(cudaGetLastError());
}
