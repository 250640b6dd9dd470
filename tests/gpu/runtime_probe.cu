// The GPU test program: reproduces rows of docs/measured-behaviour.md, each in its own
// function so each has its own call site. Blocking rows must be reported with the right rule
// and line; non-blocking rows must not be. tests/gpu/check_probe.py holds the expectations.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

static long long cyclesFor(double ms) {
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  return static_cast<long long>(ms * khz);
}

static const size_t kBig = 64u << 20;

void free_while_busy(cudaStream_t s1, long long c) {
  float *d;
  CHECK(cudaMalloc(&d, 1 << 20));             // row: cudaMalloc does not block
  spin<<<1, 1, 0, s1>>>(c);
  CHECK(cudaFree(d));                         // EXPECT implicit-sync
}

void pageable_async_copies(cudaStream_t s1, cudaStream_t s2, long long c) {
  std::vector<char> host(kBig);
  char *d;
  CHECK(cudaMalloc(&d, kBig));
  CHECK(cudaDeviceSynchronize());
  spin<<<1, 1, 0, s1>>>(c);
  CHECK(cudaMemcpyAsync(d, host.data(), kBig, cudaMemcpyHostToDevice, s2));  // EXPECT pageable HtoD
  CHECK(cudaMemcpyAsync(host.data(), d, kBig, cudaMemcpyDeviceToHost, s2));  // EXPECT pageable DtoH
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
}

void pinned_async_copies(cudaStream_t s1, cudaStream_t s2, long long c) {
  char *host, *d;
  CHECK(cudaMallocHost(&host, kBig));
  CHECK(cudaMalloc(&d, kBig));
  CHECK(cudaDeviceSynchronize());
  spin<<<1, 1, 0, s1>>>(c);
  CHECK(cudaMemcpyAsync(d, host, kBig, cudaMemcpyHostToDevice, s2));  // row: truly async, silent
  CHECK(cudaFree(nullptr));                                            // row: frees nothing, silent
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(host));
}

void legacy_behind_blocking(cudaStream_t blocking, long long c) {
  spin<<<1, 1, 0, blocking>>>(c);
  spin<<<1, 1>>>(1000);                       // EXPECT default-stream serialization
  CHECK(cudaDeviceSynchronize());
}

void sync_in_loop(cudaStream_t s1, long long c) {
  for (int i = 0; i < 4; ++i) {
    spin<<<1, 1, 0, s1>>>(c / 4);
    CHECK(cudaStreamSynchronize(s1));         // EXPECT sync-in-loop
  }
}

// libsyncwatch skips pinned copies on non-blocking streams at entry (cheap); memory that
// stops being pinned must be judged again.
void unregistered_is_pageable_again(cudaStream_t s2) {
  std::vector<char> host(kBig);
  char *d;
  CHECK(cudaMalloc(&d, kBig));
  CHECK(cudaHostRegister(host.data(), kBig, cudaHostRegisterDefault));
  CHECK(cudaMemcpyAsync(d, host.data(), kBig, cudaMemcpyHostToDevice, s2));  // row: registered, so pinned: silent
  CHECK(cudaStreamSynchronize(s2));
  CHECK(cudaHostUnregister(host.data()));
  CHECK(cudaMemcpyAsync(d, host.data(), kBig, cudaMemcpyHostToDevice, s2));  // EXPECT pageable again after unregister
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
}

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no GPU\n");
    return 0;
  }
  long long c = cyclesFor(50.0);
  cudaStream_t s1, s2, blocking;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&blocking));
  spin<<<1, 1, 0, s1>>>(1000);                // warm-up
  CHECK(cudaDeviceSynchronize());
  free_while_busy(s1, c);
  pageable_async_copies(s1, s2, c);
  pinned_async_copies(s1, s2, c);
  legacy_behind_blocking(blocking, c);
  sync_in_loop(s1, c);
  unregistered_is_pageable_again(s2);
  CHECK(cudaDeviceSynchronize());
  std::printf("probe done\n");
  return 0;
}
