// Look-alike zeros: symbol offset 0, wait flags 0, peer device 0, smem size 0 and
// cudaLaunchKernel's sharedMem 0 all sit next to a real stream argument. None of
// the zeros is a stream -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__constant__ float c_mean[3];
__constant__ float c_std[3];

__global__ void normalize_chw(float* img, int hw) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int ch = blockIdx.y;
  if (i < hw) img[ch * hw + i] = (img[ch * hw + i] - c_mean[ch]) / c_std[ch];
}

void preprocess(float* d_img, float* d_img_peer, int hw, cudaStream_t s, cudaEvent_t upstream) {
  const float mean[3] = {0.485f, 0.456f, 0.406f};
  const float stdv[3] = {0.229f, 0.224f, 0.225f};
  CUDA_CHECK(cudaStreamWaitEvent(s, upstream, 0));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_mean, mean, sizeof(mean), 0, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_std, stdv, sizeof(stdv), 0, cudaMemcpyHostToDevice, s));

  dim3 grid((hw + 255) / 256, 3);
  void* args[] = {&d_img, &hw};
  CUDA_CHECK(cudaLaunchKernel(normalize_chw, grid, dim3(256), args, 0, s));

  CUDA_CHECK(cudaMemcpyPeerAsync(d_img_peer, 1, d_img, 0, 3 * size_t(hw) * sizeof(float), s));
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(done, s));
  CUDA_CHECK(cudaEventSynchronize(done));
  CUDA_CHECK(cudaEventDestroy(done));
}

int main() {
  const int hw = 224 * 224;
  float *img, *peer;
  cudaStream_t s;
  cudaEvent_t ready;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  CUDA_CHECK(cudaMallocAsync(&img, 3 * hw * sizeof(float), s));
  CUDA_CHECK(cudaSetDevice(1));
  CUDA_CHECK(cudaMalloc(&peer, 3 * hw * sizeof(float)));  // expect: note syncwatch-implicit-sync
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaMemsetAsync(img, 0, 3 * hw * sizeof(float), s));
  CUDA_CHECK(cudaEventRecord(ready, s));
  preprocess(img, peer, hw, s, ready);
  CUDA_CHECK(cudaStreamSynchronize(s));
  printf("ok\n");
  return 0;
}
