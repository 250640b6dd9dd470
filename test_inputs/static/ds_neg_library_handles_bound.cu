// Look-alikes of ds_pos_library_handles_unbound.cu that stay silent: every handle is bound
// to a stream before its work (in the same function, in the constructor through a member,
// through a macro), a host generator does no GPU work, a handle handed in from elsewhere is
// not known here, and cuBLASLt's and the size/config calls name their stream or issue none.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>

#define CHECK_SOLVER(call) \
  do {                     \
    if ((call) != CUSOLVER_STATUS_SUCCESS) return -1; \
  } while (0)

__global__ void normalize(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

class Dense {
 public:
  Dense(int n) : n_(n) {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cublasCreate(&blas_);
    cublasSetStream(blas_, stream_);
    cublasSetMathMode(blas_, CUBLAS_TF32_TENSOR_OP_MATH);
  }
  void forward(const float *w, const float *x, float *y) {
    const float one = 1.f, zero = 0.f;
    normalize<<<(n_ + 255) / 256, 256, 0, stream_>>>(const_cast<float *>(x), n_);
    cublasSgemv(blas_, CUBLAS_OP_N, n_, n_, &one, w, n_, x, 1, &zero, y, 1);
  }

 private:
  int n_;
  cudaStream_t stream_;
  cublasHandle_t blas_;
};

int cholesky(float *A, int n, float *work, int lwork, int *info, cudaStream_t s) {
  cusolverDnHandle_t solver;
  CHECK_SOLVER(cusolverDnCreate(&solver));
  CHECK_SOLVER(cusolverDnSetStream(solver, s));
  int needed = 0;
  CHECK_SOLVER(cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, A, n, &needed));
  normalize<<<1, 256, 0, s>>>(A, n * n);
  CHECK_SOLVER(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, A, n, work, lwork, info));
  cudaStreamSynchronize(s);
  cusolverDnDestroy(solver);
  return 0;
}

// A handle handed in: where its stream was bound is not in this unit.
void gemv_with(cublasHandle_t handle, const float *w, const float *x, float *y, int n, cudaStream_t s) {
  const float one = 1.f, zero = 0.f;
  normalize<<<1, 256, 0, s>>>(y, n);
  cublasSgemv(handle, CUBLAS_OP_N, n, n, &one, w, n, x, 1, &zero, y, 1);
}

template <typename T>
void spectrum(cufftComplex *data, int n, cudaStream_t s) {
  cufftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, s);
  normalize<<<1, 256, 0, s>>>(reinterpret_cast<float *>(data), 2 * n);
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  cufftDestroy(plan);
}
template void spectrum<float>(cufftComplex *, int, cudaStream_t);

// A host generator fills host memory on the CPU.
curandGenerator_t host_rng;
void host_noise(float *h, size_t n, cudaStream_t s) {
  curandCreateGeneratorHost(&host_rng, CURAND_RNG_PSEUDO_DEFAULT);
  normalize<<<1, 256, 0, s>>>(nullptr, 0);
  curandGenerateUniform(host_rng, h, n);
}

// cuBLASLt names its stream in the call.
void lt_matmul(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, const float *a, cublasLtMatrixLayout_t la,
               const float *b, cublasLtMatrixLayout_t lb, float *c, cublasLtMatrixLayout_t lc, void *ws,
               size_t ws_size, cudaStream_t s) {
  const float one = 1.f, zero = 0.f;
  cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, c, lc, c, lc, nullptr, ws, ws_size, s);
}
