// Audio resampler with in-place pinning: the sample and output std::vectors are page-locked
// with cudaHostRegister before any stream work, then copied chunk by chunk from
// samples.data() + off and into &out[0] -> registered memory, no findings.
#include <algorithm>
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

std::vector<float> load_pcm(const char* path);  // defined in the decoder module

__global__ void fir_decimate(const float* in, float* out, size_t n_out, int factor) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  float acc = 0.f;
  for (int k = 0; k < factor; ++k) acc += in[i * factor + k] * (0.5f - 0.5f * __cosf(6.2831853f * k / factor));
  out[i] = acc * 2.f / factor;
}

double resample(const char* path, int factor) {
  std::vector<float> samples = load_pcm(path);
  const size_t total = samples.size() - samples.size() % factor;
  const size_t chunk = size_t(factor) * 48000;
  std::vector<float> out(total / factor);
  CUDA_CHECK(cudaHostRegister(samples.data(), samples.size() * sizeof(float), cudaHostRegisterDefault));
  CUDA_CHECK(cudaHostRegister(out.data(), out.size() * sizeof(float), cudaHostRegisterDefault));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));

  for (size_t off = 0; off < total; off += chunk) {
    const size_t count = std::min(chunk, total - off);
    CUDA_CHECK(cudaMemcpyAsync(d_in + off, samples.data() + off, count * sizeof(float), cudaMemcpyHostToDevice, stream));
    const size_t n_out = count / factor;
    fir_decimate<<<unsigned((n_out + 255) / 256), 256, 0, stream>>>(d_in + off, d_out + off / factor, n_out, factor);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaMemcpyAsync(&out[0], d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double rms = 0.0;
  for (float v : out) rms += double(v) * v;
  CUDA_CHECK(cudaHostUnregister(samples.data()));
  CUDA_CHECK(cudaHostUnregister(out.data()));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out.empty() ? 0.0 : rms / out.size();
}
