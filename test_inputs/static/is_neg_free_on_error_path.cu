// Cleanup on error paths: a pipeline that launches work, then allocates more, and frees what
// it has when an allocation or a mapping fails - directly, through a status variable, through
// a cleanup helper, with `||` and `&&` in the test. An error path runs once, after something
// already failed: a device-wide wait there costs nothing anyone measures -> no findings.
// The look-alikes that do warn (a success test, the else of an error test, a size test) are in
// is_pos_free_beside_error_checks.cu. (ggml's allreduce.cu frees this way.)
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

struct Staging {
  float* host = nullptr;
  float* dev = nullptr;

  // The mapping failed: give the pinned buffer back at once.
  cudaError_t alloc(size_t bytes) {
    cudaError_t rc = cudaHostAlloc(reinterpret_cast<void**>(&host), bytes, cudaHostAllocMapped);
    if (rc != cudaSuccess) {
      host = nullptr;
      return rc;
    }
    rc = cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0);
    if (rc != cudaSuccess) {
      cudaFreeHost(host);
      host = nullptr;
    }
    return rc;
  }
};

struct Pipeline {
  float* scratch = nullptr;
  float* pinned = nullptr;
  Staging staging;
  cudaStream_t stream = nullptr;
};

void release(Pipeline* p) {
  if (p->scratch) cudaFree(p->scratch);
  if (p->pinned) cudaFreeHost(p->pinned);
  delete p;
}

Pipeline* make_pipeline(int n, cudaStream_t s) {
  Pipeline* p = new Pipeline;
  p->stream = s;
  if (cudaMalloc(&p->scratch, n * sizeof(float)) != cudaSuccess) {
    release(p);
    return nullptr;
  }
  fill<<<(n + 255) / 256, 256, 0, s>>>(p->scratch, n, 0.f);
  // The kernel may run while these fail; their cleanup is not the steady state.
  if (cudaMemsetAsync(p->scratch, 0, n * sizeof(float), s) != cudaSuccess) {
    fprintf(stderr, "clearing the scratch failed\n");
    release(p);
    return nullptr;
  }
  if (p->staging.alloc(n * sizeof(float)) != cudaSuccess) {
    release(p);
    return nullptr;
  }
  cudaError_t rc = cudaStreamWaitEvent(s, nullptr, 0);
  if (rc) {
    cudaFree(p->scratch);
    p->scratch = nullptr;
    return p;
  }
  float* extra = nullptr;
  cudaError_t a = cudaMallocAsync(&extra, n * sizeof(float), s);
  cudaError_t b = cudaMemcpyAsync(extra, p->scratch, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  if (a != cudaSuccess || b != cudaSuccess) {
    cudaFree(extra);
    return p;
  }
  if (cudaGetLastError() != cudaSuccess && extra != nullptr) {
    cudaFree(extra);
    return p;
  }
  if (cudaStreamQuery(s) == cudaSuccess) {
    // (nothing: the else branch is the error path)
  } else {
    cudaFree(extra);
    return p;
  }
  cudaStreamSynchronize(s);
  cudaFree(extra);
  return p;
}
