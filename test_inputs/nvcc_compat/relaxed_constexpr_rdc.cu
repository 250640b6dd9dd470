// nvcc-flags: --expt-relaxed-constexpr -rdc=true
// plain-clang-flags: -fgpu-rdc
// nvcc defines __CUDACC_RELAXED_CONSTEXPR__ and __CUDACC_RDC__ for these flags; headers
// that need them say so.
#if !defined(__CUDACC_RELAXED_CONSTEXPR__) || !defined(__CUDACC_RDC__)
#error "build with --expt-relaxed-constexpr and -rdc=true"
#endif

constexpr float kGain = 1.5f;
extern __device__ float g_bias;  // defined in another translation unit (needs -rdc)

__global__ void gain(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * kGain + g_bias;
}

void run_gain(float *d, int n, float *scratch) {
  gain<<<(n + 255) / 256, 256>>>(d, n);  // expect: note syncwatch-default-stream
  cudaFree(scratch);  // expect: warning syncwatch-implicit-sync
}
