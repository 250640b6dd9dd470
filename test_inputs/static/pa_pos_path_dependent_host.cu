// Path-dependent host memory: pinned when the caller asks for it, malloc'd otherwise, by an
// if or a ?:. On the pageable path the async copy is not asynchronous; which path runs is
// not certain -> a note ("may copy from pageable host memory"), naming both allocations. The
// look-alikes pin on both paths (cudaMallocHost, or malloc + cudaHostRegister; a ?: of two
// pinned buffers) and stay silent.
#include <cstdlib>
#include <cuda_runtime.h>

void stage_and_upload(float* d, int n, bool pinned, cudaStream_t s) {
  float* h = nullptr;
  if (pinned)
    cudaMallocHost(&h, n * sizeof(float));
  else
    h = static_cast<float*>(malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) h[i] = float(i);
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: note syncwatch-pageable-async-copy
  cudaStreamSynchronize(s);
  if (pinned)
    cudaFreeHost(h);
  else
    free(h);
}

void stage_pinned_either_way(float* d, int n, bool reuse, float* pool, cudaStream_t s) {
  float* h = nullptr;
  if (reuse) {
    h = static_cast<float*>(malloc(n * sizeof(float)));
    cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault);
  } else {
    cudaMallocHost(&h, n * sizeof(float));
  }
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
}

void stage_chosen(float* d, float* pinned_pool, int n, bool use_pool, cudaStream_t s) {
  float* h = use_pool ? pinned_pool : static_cast<float*>(malloc(n * sizeof(float)));
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: note syncwatch-pageable-async-copy
  cudaStreamSynchronize(s);
}

void stage_two_pools(float* d, int n, bool first, cudaStream_t s) {
  float *a = nullptr, *b = nullptr;
  cudaMallocHost(&a, n * sizeof(float));
  cudaHostAlloc(&b, n * sizeof(float), cudaHostAllocDefault);
  float* h = first ? a : b;
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
}

void call_stage_chosen(float* d, int n, cudaStream_t s) {
  float* pool = nullptr;
  cudaMallocHost(&pool, n * sizeof(float));
  stage_chosen(d, pool, n, n > 1024, s);
}
