// Path-dependent host memory: pinned when the caller asks for it, malloc'd otherwise.
// On the pageable path the async copy is not asynchronous -> a warning. The look-alike
// pins on both paths (cudaMallocHost, or malloc + cudaHostRegister) and stays silent.
#include <cstdlib>
#include <cuda_runtime.h>

void stage_and_upload(float* d, int n, bool pinned, cudaStream_t s) {
  float* h = nullptr;
  if (pinned)
    cudaMallocHost(&h, n * sizeof(float));
  else
    h = static_cast<float*>(malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) h[i] = float(i);
  cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: warning syncwatch-pageable-async-copy
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
