// nvcc-flags: --extended-lambda
// plain-clang-flags:
// --extended-lambda: nvcc defines __CUDACC_EXTENDED_LAMBDA__ and has the
// __nv_is_extended_device_lambda_closure_type trait; code checks both.
#ifndef __CUDACC_EXTENDED_LAMBDA__
#error "compile with --extended-lambda"
#endif

template <typename F>
__global__ void apply(float *p, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = f(p[i]);
}

template <typename F>
void transform(float *d, int n, F f, cudaStream_t s) {
  static_assert(__nv_is_extended_device_lambda_closure_type(F), "pass a __device__ lambda");
  apply<<<(n + 255) / 256, 256, 0, s>>>(d, n, f);
}

void square_all(float *d, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);  // expect: warning syncwatch-blocking-stream
  transform(d, n, [] __device__(float x) { return x * x; }, s);
  cudaMemset(d, 0, sizeof(float));  // expect: note syncwatch-sync-memcpy
  cudaStreamDestroy(s);
}
