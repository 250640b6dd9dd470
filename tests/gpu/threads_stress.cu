// Stress test: many host threads calling CUDA at once under libsyncwatch.so. Each of 8
// threads issues 100 pageable cudaMemcpyAsync copies on its own non-blocking stream, between
// kernel launches; the report must count all 800 copies at one call site (no lost events, no
// crash). Checked by run_gpu_tests.sh.
#include <cuda_runtime.h>

#include <cstdio>
#include <thread>
#include <vector>

__global__ void touch(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

constexpr int kThreads = 8, kCopies = 100, kN = 1 << 18;

void worker() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::vector<float> host(kN, 1.0f);  // pageable
  float *d = nullptr;
  cudaMalloc(&d, kN * sizeof(float));
  for (int i = 0; i < kCopies; ++i) {
    touch<<<(kN + 255) / 256, 256, 0, s>>>(d, kN);
    cudaMemcpyAsync(d, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice, s);  // STRESS COPY
  }
  cudaStreamSynchronize(s);
  cudaFree(d);
  cudaStreamDestroy(s);
}

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(worker);
  for (auto &t : threads)
    t.join();
  std::printf("stress done: %d threads x %d copies\n", kThreads, kCopies);
  return 0;
}
