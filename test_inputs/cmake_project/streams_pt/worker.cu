// Built with --default-stream per-thread (CMakeLists.txt): every host thread gets its own
// default stream, so stream-less launches and copies here do not serialize the threads.
// syncwatch must read that flag from the nvcc command in compile_commands.json: without
// it each stream-less call below would be a legacy-default-stream warning.
#include "streams_pt/worker.h"

#include "common/check.h"

#include <thread>
#include <vector>

namespace streams_pt {

__global__ void scale(float *x, std::size_t n, float a) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

static void work(std::size_t n, float factor, float *pinned_out, double *result) {
  float *d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d, 0, n * sizeof(float)));  // per-thread stream: silent
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  scale<<<blocks, 256>>>(d, n, factor);                     // per-thread stream: silent
  CUDA_CHECK(cudaMemcpyAsync(pinned_out, d, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += pinned_out[i];
  *result = s;
  CUDA_CHECK(cudaFree(d));
}

double scaleInThreads(int threads, std::size_t n_per_thread, float factor) {
  float *pinned = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, threads * n_per_thread * sizeof(float)));
  std::vector<double> results(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(work, n_per_thread, factor, pinned + t * n_per_thread, &results[t]);
  for (std::thread &th : pool) th.join();
  // A legacy library hands results over on the legacy stream: that still serializes.
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // expect: warning syncwatch-default-stream
  CUDA_CHECK(cudaFreeHost(pinned));
  double sum = 0;
  for (double r : results) sum += r;
  return sum;
}

}  // namespace streams_pt
