// FIR filter with taps in __constant__ memory. cudaMemcpyToSymbolAsync omits the
// stream (its offset 0 is NOT a stream), cudaMemcpyFromSymbolAsync passes stream 0
// on its own line, and the launch has no stream. No other stream -> three notes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err = (call);                                               \
    if (err != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

constexpr int kTaps = 31;
__constant__ float c_taps[kTaps];
__device__ unsigned int d_clipped;

__global__ void fir(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int t = 0; t < kTaps; ++t) {
    int j = i - t;
    acc += (j >= 0 ? in[j] : 0.f) * c_taps[t];
  }
  if (fabsf(acc) > 1.f) atomicAdd(&d_clipped, 1u);
  out[i] = fminf(fmaxf(acc, -1.f), 1.f);
}

unsigned int apply_fir(const float* h_taps, const float* d_in, float* d_out, int n) {
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, h_taps, kTaps * sizeof(float), 0,  // expect: note syncwatch-default-stream
                                     cudaMemcpyHostToDevice));
  const unsigned int zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(d_clipped, &zero, sizeof(zero)));

  fir<<<(n + 127) / 128, 128>>>(d_in, d_out, n);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());

  unsigned int clipped = 0;
  CUDA_CHECK(cudaMemcpyFromSymbolAsync(&clipped, d_clipped, sizeof(clipped), 0,  // expect: warning syncwatch-pageable-async-copy
                                       cudaMemcpyDeviceToHost,
                                       0));  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaDeviceSynchronize());
  return clipped;
}
