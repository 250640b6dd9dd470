// Asynchronous export: all work is queued once, then the host overlaps CPU-side encoding
// with a cudaStreamQuery polling loop that issues no GPU work itself, and is not nested in a
// loop that does -> no findings.
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

__global__ void quantize(const float* in, unsigned char* out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned char)fminf(fmaxf(in[i] * scale, 0.f), 255.f);
}

int encode_header_chunk(char* header, int chunk);  // CPU-side encoder, defined elsewhere

// h_out: cudaMallocHost'ed by the caller.
int export_volume(const float* d_vol, unsigned char* d_q, unsigned char* h_out, int n, char* header,
                  cudaStream_t s) {
  quantize<<<(n + 255) / 256, 256, 0, s>>>(d_vol, d_q, n, 255.f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_q, n, cudaMemcpyDeviceToHost, s));

  int chunk = 0, written = 0;
  cudaError_t st;
  while ((st = cudaStreamQuery(s)) == cudaErrorNotReady) {
    written += encode_header_chunk(header + written, chunk++);
  }
  CUDA_CHECK(st);
  return written;
}
