// Camera SDK bridge: host pointers come from an SDK function that is only declared here,
// from a global ring assigned by the capture module, and from a parameter of an exported
// function never called in this file -> unknown provenance, no findings.
#include <cstddef>
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

extern "C" const unsigned short* cam_acquire_frame(int camera, size_t* bytes);  // vendor SDK
extern "C" void cam_release_frame(int camera);
extern unsigned short* g_capture_ring;  // allocated (pinned) by capture.cpp
extern size_t g_ring_frame_pixels;

__global__ void debayer_green(const unsigned short* raw, float* green, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  green[size_t(y) * w + x] = ((x + y) & 1) ? raw[size_t(y) * w + x] / 65535.f : 0.f;
}

void upload_live(int camera, unsigned short* d_raw, float* d_green, int w, int h, cudaStream_t s) {
  size_t bytes = 0;
  const unsigned short* frame = cam_acquire_frame(camera, &bytes);
  CUDA_CHECK(cudaMemcpyAsync(d_raw, frame, bytes, cudaMemcpyHostToDevice, s));
  debayer_green<<<dim3((w + 127) / 128, h), 128, 0, s>>>(d_raw, d_green, w, h);
  CUDA_CHECK(cudaStreamSynchronize(s));
  cam_release_frame(camera);
}

void upload_from_ring(int slot, unsigned short* d_raw, cudaStream_t s) {
  const unsigned short* src = g_capture_ring + slot * g_ring_frame_pixels;
  CUDA_CHECK(cudaMemcpyAsync(d_raw, src, g_ring_frame_pixels * sizeof(unsigned short), cudaMemcpyHostToDevice, s));
}

// Exported to the Python bindings; callers pass their own buffers.
extern "C" void export_green(float* host_out, const float* d_green, size_t pixels, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(host_out, d_green, pixels * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
}
