// A solver's checks after each launch, in the style of AMGX's cudaCheckError(): the device
// sync inside FatalError runs only when cudaGetLastError() reported an error, once, before
// the throw - never in steady state. Neither the loop's sync (sync-in-loop) nor the sync
// before the readback (redundant-sync) is reported; only the stream-less launches' notes remain.
#include <cuda_runtime.h>

#include <stdexcept>

#define FatalError(msg)                                                                       \
  {                                                                                           \
    cudaDeviceSynchronize();                                                                  \
    throw std::runtime_error(msg);                                                            \
  }
#define cudaCheckError()                                                                      \
  {                                                                                           \
    cudaError_t e = cudaGetLastError();                                                       \
    if (e != cudaSuccess) {                                                                   \
      FatalError(cudaGetErrorString(e));                                                      \
    }                                                                                         \
  }

__global__ void relax(float *x, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.5f * (x[i] + b[i]);
}

__global__ void converged(const float *x, int n, int *flag) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *flag = x[0] < 1e-6f ? 0 : 1;
}

void smooth(float *x, const float *b, int n, int sweeps) {
  for (int s = 0; s < sweeps; ++s) {
    relax<<<(n + 255) / 256, 256>>>(x, b, n);  // expect: note syncwatch-default-stream
    cudaCheckError();
  }
}

// A configuration that is not supported gives up in the loop's first iteration: the sync in
// FatalError before the throw runs once (AMGX's multicolor solvers' `else { FatalError(...); }`).
void sweep(float *x, const float *b, int n, int colors, int method) {
  for (int c = 0; c < colors; ++c) {
    if (method == 0) {
      relax<<<(n + 255) / 256, 256>>>(x, b, n);  // expect: note syncwatch-default-stream
    } else {
      FatalError("unsupported smoother");
    }
  }
}

int iterate_until_converged(float *x, const float *b, int n, int *d_flag) {
  int flag = 1, iterations = 0;
  while (flag != 0) {
    relax<<<(n + 255) / 256, 256>>>(x, b, n);  // expect: note syncwatch-default-stream
    converged<<<1, 32>>>(x, n, d_flag);  // expect: note syncwatch-default-stream
    cudaCheckError();
    cudaMemcpy(&flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
    ++iterations;
  }
  return iterations;
}
