// Variable-resolution renderer: when a frame is larger than the current buffers they are
// re-created inside the frame loop (cudaFree warning), and the download helper regrows its
// pinned staging after queuing work (cudaFreeHost warning); the allocations after them are silent.
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

__global__ void render(float* img, size_t pitch, int w, int h, int frame) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(img) + y * pitch);
  row[x] = __sinf(0.01f * (x + frame)) * __cosf(0.01f * (y - frame));
}

__global__ void row_mean(const float* img, size_t pitch, int w, int h, float* mean) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h) return;
  const float* row = reinterpret_cast<const float*>(reinterpret_cast<const char*>(img) + y * pitch);
  float acc = 0.f;
  for (int x = 0; x < w; ++x) acc += row[x];
  atomicAdd(mean, acc / (float(w) * h));
}

void render_sequence(const int2* sizes, int frames, float* d_means, cudaStream_t s) {
  float* d_img = nullptr;
  size_t pitch = 0;
  int cap_w = 0, cap_h = 0;
  for (int f = 0; f < frames; ++f) {
    const int w = sizes[f].x, h = sizes[f].y;
    if (w > cap_w || h > cap_h) {
      CUDA_CHECK(cudaFree(d_img));  // expect: warning syncwatch-implicit-sync
      CUDA_CHECK(cudaMallocPitch(&d_img, &pitch, w * sizeof(float), h));
      cap_w = w;
      cap_h = h;
    }
    render<<<dim3((w + 127) / 128, h), 128, 0, s>>>(d_img, pitch, w, h, f);
    row_mean<<<(h + 127) / 128, 128, 0, s>>>(d_img, pitch, w, h, d_means + f);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFree(d_img));
}

void download_frame(float** h_buf, size_t* cap, float* d_img, size_t pitch, int w, int h, cudaStream_t s) {
  render<<<dim3((w + 127) / 128, h), 128, 0, s>>>(d_img, pitch, w, h, 0);
  const size_t need = size_t(w) * h * sizeof(float);
  if (need > *cap) {
    CUDA_CHECK(cudaFreeHost(*h_buf));  // expect: warning syncwatch-implicit-sync
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(h_buf), need, cudaHostAllocDefault));
    *cap = need;
  }
  CUDA_CHECK(cudaMemcpy2DAsync(*h_buf, w * sizeof(float), d_img, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
}
