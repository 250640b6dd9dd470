// Solver snapshots taken while relaxation kernels are still queued: cudaHostRegister of the
// snapshot vector (note), cudaHostUnregister before the stream is synchronized (warning) and
// a cudaMallocManaged debug view after a launch (note) -> three implicit-sync findings.
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

__global__ void jacobi_relax(float* u, size_t n, float omega) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > 0 && i + 1 < n) u[i] = (1.f - omega) * u[i] + 0.5f * omega * (u[i - 1] + u[i + 1]);
}

__global__ void copy_abs(const float* in, float* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fabsf(in[i]);
}

std::vector<float> snapshot_state(float* d_u, size_t n, int sweeps, cudaStream_t s) {
  const unsigned blocks = unsigned((n + 255) / 256);
  for (int k = 0; k < sweeps; ++k) jacobi_relax<<<blocks, 256, 0, s>>>(d_u, n, 0.8f);
  std::vector<float> snap(n);
  CUDA_CHECK(cudaHostRegister(snap.data(), n * sizeof(float), cudaHostRegisterDefault));  // expect: note syncwatch-implicit-sync
  CUDA_CHECK(cudaMemcpyAsync(snap.data(), d_u, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaHostUnregister(snap.data()));  // expect: warning syncwatch-implicit-sync
  CUDA_CHECK(cudaStreamSynchronize(s));
  return snap;
}

float* attach_debug_view(const float* d_u, size_t n, cudaStream_t s) {
  float* d_abs;
  CUDA_CHECK(cudaMalloc(&d_abs, n * sizeof(float)));
  copy_abs<<<unsigned((n + 255) / 256), 256, 0, s>>>(d_u, d_abs, n);
  float* view;
  CUDA_CHECK(cudaMallocManaged(&view, n * sizeof(float)));  // expect: note syncwatch-implicit-sync
  CUDA_CHECK(cudaMemcpyAsync(view, d_abs, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_abs));
  return view;
}
