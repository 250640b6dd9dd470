// Interop with a legacy-stream third-party library: the author passes
// cudaStreamLegacy explicitly so the work orders with that library. The file also
// owns non-blocking streams, so each explicit cudaStreamLegacy use is a warning.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
  do {                                                                       \
    cudaError_t status_ = (x);                                               \
    if (status_ != cudaSuccess) {                                            \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                      \
              cudaGetErrorString(status_));                                  \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

// Provided by a vendor library that only knows about the legacy stream.
void vendor_fft_inplace(float2* data, int n);

__global__ void window_hann(float2* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float w = 0.5f * (1.f - __cosf(6.2831853f * i / (n - 1)));
    x[i].x *= w;
    x[i].y *= w;
  }
}

__global__ void magnitude(const float2* x, float* mag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mag[i] = sqrtf(x[i].x * x[i].x + x[i].y * x[i].y);
}

void spectrum(const float2* h_signal, float* h_mag, int n) {
  cudaStream_t io;
  CUDA_CHECK(cudaStreamCreateWithFlags(&io, cudaStreamNonBlocking));
  float2* d_sig;
  float* d_mag;
  CUDA_CHECK(cudaMalloc(&d_sig, n * sizeof(float2)));
  CUDA_CHECK(cudaMalloc(&d_mag, n * sizeof(float)));

  CUDA_CHECK(cudaMemcpyAsync(d_sig, h_signal, n * sizeof(float2),
                             cudaMemcpyHostToDevice, cudaStreamLegacy));  // expect: warning syncwatch-default-stream
  window_hann<<<(n + 255) / 256, 256, 0, cudaStreamLegacy>>>(d_sig, n);  // expect: warning syncwatch-default-stream
  vendor_fft_inplace(d_sig, n);

  cudaEvent_t fft_done;
  CUDA_CHECK(cudaEventCreateWithFlags(&fft_done, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(fft_done, cudaStreamLegacy));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaStreamWaitEvent(io, fft_done, 0));
  magnitude<<<(n + 255) / 256, 256, 0, io>>>(d_sig, d_mag, n);
  CUDA_CHECK(cudaMemcpyAsync(h_mag, d_mag, n * sizeof(float), cudaMemcpyDeviceToHost, io));
  CUDA_CHECK(cudaStreamSynchronize(io));

  CUDA_CHECK(cudaEventDestroy(fft_done));
  CUDA_CHECK(cudaFree(d_sig));
  CUDA_CHECK(cudaFree(d_mag));
  CUDA_CHECK(cudaStreamDestroy(io));
}
