// nvcc-flags: -std=c++17
// plain-clang-flags:
// nvcc defines __CUDACC__ as 1 and __CUDACC_VER_MAJOR__; code tests both with #if.
#if __CUDACC__
#define HD __host__ __device__
#endif
#if __CUDACC_VER_MAJOR__ < 12
#error "needs CUDA 12"
#endif

HD inline float twice(float x) { return 2.f * x; }

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = twice(p[i]);
}

void run(float *d, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  scale<<<(n + 255) / 256, 256>>>(d, n);  // expect: warning syncwatch-default-stream
}
