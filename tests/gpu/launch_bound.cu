// Overhead benchmark program: a launch-bound loop (one tiny kernel per iteration plus a
// 64-byte pinned cudaMemcpyAsync every 4th, over 4 non-blocking streams), as in
// docs/measured-behaviour.md. Prints ns per iteration and peak RSS.
// `launch_bound N toggle`: one process times blocks of N iterations in 40 pairs, syncwatch on
// in one block of each pair and off in the other (libsyncwatch.so's syncwatch_set_active,
// under SYNCWATCH_BENCH_TOGGLE=1, or cupti_kinds_preload.c's probe_set; the order
// alternates), and prints the pairs' median ratio on/off with its quartiles (nearest rank):
// between processes this loop moved by a third (docs/benchmarks.md). "Off" keeps the
// subscription with nothing enabled, below the CUPTI floor (callbacks on that do nothing):
// on/off bounds syncwatch / floor from above.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

__global__ void tiny(int *x) {
  if (threadIdx.x == 0)
    x[blockIdx.x] += 1;
}

// The loop: a launch per iteration, a pinned 64-byte copy every 4th. Returns ns per iteration.
double run(int iters, cudaStream_t *s, int *d, char *dc, char *h) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    tiny<<<1, 32, 0, s[i % 4]>>>(d);
    if (i % 4 == 0)
      cudaMemcpyAsync(dc + 64 * (i / 4 % 4), h + 64 * (i / 4 % 4), 64, cudaMemcpyHostToDevice, s[i % 4]);
  }
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / iters;
}

int toggle(int iters, cudaStream_t *s, int *d, char *dc, char *h) {
  using SetActive = int (*)(int);
  using ProbeSet = void (*)(int);  // tests/gpu/cupti_kinds_preload.c's, for CUPTI's pieces
  static auto Probe = reinterpret_cast<ProbeSet>(dlsym(RTLD_DEFAULT, "probe_set"));
  auto Set = reinterpret_cast<SetActive>(dlsym(RTLD_DEFAULT, "syncwatch_set_active"));
  if (!Set && Probe)
    Set = [](int on) { Probe(on); return 0; };
  if (!Set || Set(1) != 0) {
    std::fprintf(stderr, "launch_bound toggle: no syncwatch_set_active (preload libsyncwatch.so with "
                         "SYNCWATCH_BENCH_TOGGLE=1) nor probe_set\n");
    return 2;
  }
  std::vector<double> Ratios, On, Off;
  for (int pair = 0; pair < 40; ++pair) {
    double t[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      int on = (pair % 2 == 0) ? 1 - k : k;
      Set(on);
      run(iters / 10, s, d, dc, h);  // the switch's own transient, not timed
      t[on] = run(iters, s, d, dc, h);
    }
    Ratios.push_back(t[1] / t[0]);
    On.push_back(t[1]);
    Off.push_back(t[0]);
  }
  Set(1);
  auto At = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * (v.size() - 1) + 0.5)];
  };
  std::printf("toggle_ratio %.4f q1 %.4f q3 %.4f min %.4f max %.4f on_ns %.1f off_ns %.1f pairs %zu\n",
              At(Ratios, 0.5), At(Ratios, 0.25), At(Ratios, 0.75), At(Ratios, 0), At(Ratios, 1), At(On, 0.5),
              At(Off, 0.5), Ratios.size());
  return 0;
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
  if (argc > 2 && std::string(argv[2]) == "toggle")
    return toggle(iters, s, d, dc, h);
  double ns = run(iters, s, d, dc, h);
  long rss = 0;
  std::ifstream st("/proc/self/status");
  for (std::string line; std::getline(st, line);)
    if (line.rfind("VmHWM:", 0) == 0)
      rss = std::atol(line.c_str() + 6);
  std::printf("ns_per_iter %.1f peak_rss_kb %ld\n", ns, rss);
  return 0;
}
