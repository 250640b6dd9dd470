// syncwatch-redundant-sync measured (docs/rules/syncwatch-redundant-sync.md): a loop of a
// short kernel and a 4-byte device-to-host cudaMemcpy, with and without a cudaDeviceSynchronize
// (or cudaStreamSynchronize of a blocking stream) between them. Prints microseconds per
// iteration for each variant, interleaved in rounds, and the median of the rounds.
//   redundant_sync [iterations per round] [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

__global__ void spin(float* x, int loops) {
  float v = x[threadIdx.x];
  for (int i = 0; i < loops; ++i) v = v * 0.999f + 0.001f;
  x[threadIdx.x] = v;
}

enum Variant { NoSync, DeviceSync, StreamSync };

static double run(Variant v, int iters, float* d, cudaStream_t s, int loops) {
  float h = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    spin<<<1, 32, 0, s>>>(d, loops);
    if (v == DeviceSync) cudaDeviceSynchronize();
    if (v == StreamSync) cudaStreamSynchronize(s);
    cudaMemcpy(&h, d, sizeof(float), cudaMemcpyDeviceToHost);
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 7;
  float* d;
  cudaMalloc(&d, 32 * sizeof(float));
  cudaMemset(d, 0, 32 * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);  // blocking: the legacy-stream copy waits for its work
  const char* names[] = {"no sync", "cudaDeviceSynchronize", "cudaStreamSynchronize"};
  for (int loops : {0, 20000}) {
    std::vector<double> us[3];
    run(NoSync, 200, d, s, loops);
    for (int r = 0; r < rounds; ++r)
      for (int v = 0; v < 3; ++v) us[v].push_back(run(static_cast<Variant>(v), iters, d, s, loops));
    for (int v = 0; v < 3; ++v) {
      std::sort(us[v].begin(), us[v].end());
      std::printf("kernel loops %5d  %-22s median %.2f us/iter (min %.2f, max %.2f)\n", loops, names[v],
                  us[v][us[v].size() / 2], us[v].front(), us[v].back());
    }
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
