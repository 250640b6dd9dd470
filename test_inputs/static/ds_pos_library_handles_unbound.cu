// Library handles that never get a stream: cuBLAS, cuSOLVER, cuFFT and cuRAND calls on a
// handle made here with no *SetStream run on the legacy default stream, which serializes
// them with the pipeline's blocking stream (issue 41 item 2).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>

#include <cstdio>

#define CUBLAS_CHECK(call)                                                   \
  do {                                                                       \
    cublasStatus_t st_ = (call);                                             \
    if (st_ != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "cublas %d\n", st_); \
  } while (0)

__global__ void normalize(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

// A layer that keeps its cuBLAS handle as a member; the constructor makes it and forgets
// to bind the layer's stream.
class Dense {
 public:
  Dense(int n) : n_(n) {
    cudaStreamCreate(&stream_);  // expect: warning syncwatch-blocking-stream
    cublasCreate(&blas_);
  }
  void forward(const float *w, const float *x, float *y) {
    const float one = 1.f, zero = 0.f;
    normalize<<<(n_ + 255) / 256, 256, 0, stream_>>>(const_cast<float *>(x), n_);
    CUBLAS_CHECK(cublasSgemv(blas_, CUBLAS_OP_N, n_, n_, &one, w, n_, x, 1, &zero, y, 1));  // expect: warning syncwatch-default-stream
  }

 private:
  int n_;
  cudaStream_t stream_;
  cublasHandle_t blas_;
};

// A Cholesky solve with a handle made on the spot.
int cholesky(float *A, int n, float *work, int lwork, int *info, cudaStream_t s) {
  cusolverDnHandle_t solver;
  cusolverDnCreate(&solver);
  normalize<<<1, 256, 0, s>>>(A, n * n);
  cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info);  // expect: warning syncwatch-default-stream
  int host_info = 0;
  cudaMemcpy(&host_info, info, sizeof(int), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  cusolverDnDestroy(solver);
  return host_info;
}

// An FFT plan, made in a template and executed without cufftSetStream.
template <typename T>
void spectrum(cufftComplex *data, int n, cudaStream_t s) {
  cufftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  normalize<<<1, 256, 0, s>>>(reinterpret_cast<float *>(data), 2 * n);
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);  // expect: warning syncwatch-default-stream
  cufftDestroy(plan);
}
template void spectrum<float>(cufftComplex *, int, cudaStream_t);

// A device generator made in one function and used from a lambda in another.
curandGenerator_t rng;
void seed_rng() {
  curandCreateGenerator(&rng, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  curandSetPseudoRandomGeneratorSeed(rng, 1234);
}
void noise(float *d, size_t n, cudaStream_t s) {
  auto fill = [&] { curandGenerateNormal(rng, d, n, 0.f, 1.f); };  // expect: warning syncwatch-default-stream
  normalize<<<1, 256, 0, s>>>(d, static_cast<int>(n));
  fill();
}
