// Provenance across functions: a helper returning malloc'd memory (flag), a parameter that
// receives vector.data() at every call site (flag), a parameter receiving pinned memory at one
// site and pageable at another (a note: may be pageable), and a function never called
// (silent) -> two warnings and a note.
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

__global__ void blend(float* acc, const float* frame, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] = (1.f - w) * acc[i] + w * frame[i];
}

static float* make_staging(size_t count) { return static_cast<float*>(malloc(count * sizeof(float))); }

static void upload_frame(float* d_dst, const float* h_src, int n, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src, n * sizeof(float), cudaMemcpyHostToDevice, s));  // expect: warning syncwatch-pageable-async-copy
}

static void upload_mask(float* d_dst, const float* h_src, int n, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src, n * sizeof(float), cudaMemcpyHostToDevice, s));  // expect: note syncwatch-pageable-async-copy
}

void download_debug(float* h_dst, const float* d_src, int n, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(h_dst, d_src, n * sizeof(float), cudaMemcpyDeviceToHost, s));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  std::vector<float> frame_a(n, 1.f), frame_b(n, 2.f), soft_mask(n, 0.5f);
  float* staging = make_staging(n);
  float* pinned_mask;
  float *d_acc, *d_frame, *d_mask;
  CUDA_CHECK(cudaMallocHost(&pinned_mask, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_acc, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_frame, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_mask, n * sizeof(float)));
  for (int i = 0; i < n; ++i) staging[i] = pinned_mask[i] = float(i & 1);

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemcpyAsync(d_acc, staging, n * sizeof(float), cudaMemcpyHostToDevice, s));  // expect: warning syncwatch-pageable-async-copy
  upload_mask(d_mask, pinned_mask, n, s);
  upload_mask(d_mask, soft_mask.data(), n, s);
  upload_frame(d_frame, frame_a.data(), n, s);
  blend<<<(n + 255) / 256, 256, 0, s>>>(d_acc, d_frame, n, 0.25f);
  upload_frame(d_frame, frame_b.data(), n, s);
  blend<<<(n + 255) / 256, 256, 0, s>>>(d_acc, d_frame, n, 0.25f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(s));

  CUDA_CHECK(cudaFree(d_acc));
  CUDA_CHECK(cudaFree(d_frame));
  CUDA_CHECK(cudaFree(d_mask));
  CUDA_CHECK(cudaFreeHost(pinned_mask));
  CUDA_CHECK(cudaStreamDestroy(s));
  free(staging);
  return 0;
}
