// A library call is stream work on its handle's stream for every rule (issue 41 item 2):
// a cudaFree after a cuBLAS call waits for it unless that stream was drained first.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define BLAS_OK(call) ((call) == CUBLAS_STATUS_SUCCESS)

// A scratch product freed at once: the handle has no stream, the gemm runs on the legacy
// stream, and the first cudaFree waits for it (the second finds the device idle).
bool square_once(int n) {
  cublasHandle_t h;
  if (!BLAS_OK(cublasCreate(&h)))
    return false;
  float *a, *c;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  const float one = 1, zero = 0;
  bool ok = BLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n));  // expect: warning syncwatch-default-stream
  cudaFree(a);  // expect: warning syncwatch-implicit-sync
  cudaFree(c);
  cublasDestroy(h);
  return ok;
}

// Bound to s, then s drained: nothing runs at the free.
void square_synced(int n, cudaStream_t s) {
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, s);
  float *a, *c;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  const float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n);
  cudaStreamSynchronize(s);
  cudaFree(a);
  cudaFree(c);
  cublasDestroy(h);
}

// Bound to s, but the stream drained is another one: the gemm may still run.
void square_wrong_sync(int n, cudaStream_t s, cudaStream_t other) {
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, s);
  float *a;
  cudaMalloc(&a, n * n * sizeof(float));
  const float one = 1, zero = 0;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, a, n);
  cudaStreamSynchronize(other);
  cudaFree(a);  // expect: warning syncwatch-implicit-sync
  cublasDestroy(h);
}
