// Host memory chosen by a template argument. An `if constexpr` on a bool parameter: the
// template's body holds both paths (pinned and malloc'd), so the copy "may" be pageable -> a
// note naming both allocations. A policy class that allocates: the instantiation with the
// heap policy certainly copies from pageable memory -> a warning at the copy. The look-alikes
// pin on every path (cudaMallocHost or cudaHostAlloc by the argument; only the pinned policy
// instantiated) and stay silent.
#include <cstdlib>
#include <cuda_runtime.h>

#define STAGING_BYTES(n) ((n) * sizeof(float))

template <bool Pinned>
void upload_staged(float* dev, size_t n, cudaStream_t s) {
  float* host;
  if constexpr (Pinned)
    cudaMallocHost(&host, STAGING_BYTES(n));
  else
    host = static_cast<float*>(malloc(STAGING_BYTES(n)));
  for (size_t i = 0; i < n; ++i) host[i] = 1.0f;
  cudaMemcpyAsync(dev, host, STAGING_BYTES(n), cudaMemcpyHostToDevice, s);  // expect: note syncwatch-pageable-async-copy
  cudaStreamSynchronize(s);
}

template <bool WriteCombined>
void upload_pinned_kinds(float* dev, size_t n, cudaStream_t s) {
  float* host;
  if constexpr (WriteCombined)
    cudaHostAlloc(&host, STAGING_BYTES(n), cudaHostAllocWriteCombined);
  else
    cudaMallocHost(&host, STAGING_BYTES(n));
  cudaMemcpyAsync(dev, host, STAGING_BYTES(n), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
}

struct PinnedPolicy {
  static float* get(size_t n) {
    float* p = nullptr;
    cudaMallocHost(&p, STAGING_BYTES(n));
    return p;
  }
};
struct HeapPolicy {
  static float* get(size_t n) { return static_cast<float*>(malloc(STAGING_BYTES(n))); }
};

template <typename Policy>
void upload_with(float* dev, size_t n, cudaStream_t s) {
  float* host = Policy::get(n);
  cudaMemcpyAsync(dev, host, STAGING_BYTES(n), cudaMemcpyHostToDevice, s);  // expect: warning syncwatch-pageable-async-copy
  cudaStreamSynchronize(s);
}

template <typename Policy>
void upload_pinned_only(float* dev, size_t n, cudaStream_t s) {
  float* host = Policy::get(n);
  cudaMemcpyAsync(dev, host, STAGING_BYTES(n), cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
}

void run_uploads(float* dev, size_t n, cudaStream_t s) {
  upload_staged<true>(dev, n, s);
  upload_staged<false>(dev, n, s);
  upload_pinned_kinds<true>(dev, n, s);
  upload_pinned_kinds<false>(dev, n, s);
  upload_with<PinnedPolicy>(dev, n, s);
  upload_with<HeapPolicy>(dev, n, s);
  upload_pinned_only<PinnedPolicy>(dev, n, s);
}
