// The look-alikes of is_neg_free_on_error_path.cu that are not error paths: a free when a call
// succeeded, in the else branch of an error test, behind a size test or a pointer test, and a
// cleanup helper called on the success path - each while a kernel may still run -> warnings.
#include <cuda_runtime.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

void release(float* d) { cudaFree(d); }  // expect: warning syncwatch-implicit-sync

void regrow(float*& d, int& capacity, int n, cudaStream_t s) {
  fill<<<(capacity + 255) / 256, 256, 0, s>>>(d, capacity, 0.f);
  float* bigger = nullptr;
  if (cudaMalloc(&bigger, n * sizeof(float)) == cudaSuccess) {  // expect: note syncwatch-implicit-sync
    cudaFree(d);  // expect: warning syncwatch-implicit-sync
    d = bigger;
    capacity = n;
  }
}

void swap_on_success(float*& d, int n, cudaStream_t s) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, 1.f);
  float* next = nullptr;
  cudaError_t rc = cudaMalloc(&next, n * sizeof(float));  // expect: note syncwatch-implicit-sync
  if (rc != cudaSuccess) {
    return;
  } else {
    cudaFree(d);  // expect: warning syncwatch-implicit-sync
    d = next;
  }
}

void shrink(float*& d, int n, int limit, cudaStream_t s) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, 2.f);
  if (n > limit) {
    cudaFree(d);  // expect: warning syncwatch-implicit-sync
    d = nullptr;
  }
}

void finish(float* d, int n, cudaStream_t s) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, n, 3.f);
  if (cudaGetLastError() == cudaSuccess)
    release(d);
}
