// Overhead benchmark program: a launch-bound loop (one tiny kernel per iteration plus a
// 64-byte pinned cudaMemcpyAsync every 4th, over 4 non-blocking streams), as in
// docs/measured-behaviour.md. Prints ns per iteration and peak RSS.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

__global__ void tiny(int *x) {
  if (threadIdx.x == 0)
    x[blockIdx.x] += 1;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 250000;
  cudaStream_t s[4];
  for (auto &x : s)
    cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  int *d;
  char *h, *dc;
  cudaMalloc(&d, 1024);
  cudaMalloc(&dc, 64 * 4);
  cudaMallocHost(&h, 64 * 4);
  for (int i = 0; i < 1000; ++i)
    tiny<<<1, 32, 0, s[i % 4]>>>(d);
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    tiny<<<1, 32, 0, s[i % 4]>>>(d);
    if (i % 4 == 0)
      cudaMemcpyAsync(dc + 64 * (i / 4 % 4), h + 64 * (i / 4 % 4), 64, cudaMemcpyHostToDevice, s[i % 4]);
  }
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / iters;
  long rss = 0;
  std::ifstream st("/proc/self/status");
  for (std::string line; std::getline(st, line);)
    if (line.rfind("VmHWM:", 0) == 0)
      rss = std::atol(line.c_str() + 6);
  std::printf("ns_per_iter %.1f peak_rss_kb %ld\n", ns, rss);
  return 0;
}
