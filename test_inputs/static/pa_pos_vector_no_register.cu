// Sensor-log decimation without pinning: samples stay in a plain std::vector (never passed
// to cudaHostRegister) and are uploaded chunk by chunk from samples.data() + off, the result
// comes back into &out[0] -> two pageable-async-copy warnings.
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

std::vector<float> read_sensor_log(const char* path);  // defined in the I/O module

__global__ void box_decimate(const float* in, float* out, size_t n_out, int factor) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  float acc = 0.f;
  for (int k = 0; k < factor; ++k) acc += in[i * factor + k];
  out[i] = acc / factor;
}

double decimate_log(const char* path, int factor) {
  std::vector<float> samples = read_sensor_log(path);
  const size_t total = samples.size() - samples.size() % factor;
  const size_t chunk = size_t(factor) * 65536;
  std::vector<float> out(total / factor);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));

  for (size_t off = 0; off < total; off += chunk) {
    const size_t count = std::min(chunk, total - off);
    CUDA_CHECK(cudaMemcpyAsync(d_in + off, samples.data() + off, count * sizeof(float), cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
    const size_t n_out = count / factor;
    box_decimate<<<unsigned((n_out + 255) / 256), 256, 0, stream>>>(d_in + off, d_out + off / factor, n_out, factor);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaMemcpyAsync(&out[0], d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double peak = 0.0;
  for (float v : out) peak = std::max(peak, double(v));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return peak;
}
