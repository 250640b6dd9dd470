// The sync is there to time the kernels: the clock is read between it and the readback, so
// the sync is not redundant. A sync before a host-to-device upload is not either: the upload
// from pageable memory can return before the earlier kernels are done.
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void relax(float* grid, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) grid[i] = 0.5f * (grid[i - 1] + grid[i + 1]);
}

void bench(float* d_grid, float* h_grid, int n, int reps) {
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    relax<<<(n + 255) / 256, 256>>>(d_grid, n);  // expect: note syncwatch-default-stream
    cudaDeviceSynchronize();  // expect: warning syncwatch-sync-in-loop
    auto t1 = std::chrono::steady_clock::now();
    cudaMemcpy(h_grid, d_grid, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%d: %.3f ms\n", r, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  for (int r = 0; r < reps; ++r) {
    relax<<<(n + 255) / 256, 256>>>(d_grid, n);  // expect: note syncwatch-default-stream
    cudaDeviceSynchronize();  // expect: warning syncwatch-sync-in-loop
    cudaMemcpy(d_grid, h_grid, n * sizeof(float), cudaMemcpyHostToDevice);
  }
}
