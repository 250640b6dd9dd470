// FP class 1: a synchronization that runs only on an error path is reported by
// syncwatch-sync-in-loop and syncwatch-redundant-sync. AMGX's release cudaCheckError()
// (include/error.h:123) calls FatalError (error.h:101: cudaDeviceSynchronize(); throw ...)
// only when cudaGetLastError() failed. AMGX: 298 of 314 sync-in-loop warnings (e.g.
// src/aggregation/selectors/size2_selector.cu:688) and all 3 redundant-sync warnings
// (src/classical/interpolators/distance2.cu:2025). implicit-sync is already silent there.
#include <cuda_runtime.h>
#include <stdexcept>
#define FatalError(s) { cudaDeviceSynchronize(); throw std::runtime_error(s); }
#define cudaCheckError() {                                       \
  cudaError_t e = cudaGetLastError();                            \
  if (e != cudaSuccess) { FatalError(cudaGetErrorString(e)); }   \
}
__global__ void k(int *d) { d[threadIdx.x] += 1; }

void run(int *d, int n) {
  for (int i = 0; i < n; ++i) {
    k<<<1, 32>>>(d);
    cudaCheckError();   // warning: sync-in-loop (the sync runs only after an error)
  }
}

int poll(int *d_status) {
  int status = 1;
  while (status != 0) {
    k<<<1, 32>>>(d_status);
    cudaCheckError();   // warning: redundant-sync (no sync on the normal path)
    cudaMemcpy(&status, d_status, sizeof(int), cudaMemcpyDeviceToHost);
  }
  return status;
}
