// nvcc-flags: -std=c++17
// plain-clang-flags: -std=c++17
// The `register` storage class in C++17 host code (NVIDIA-developer-blog
// posts/cuda-vmm/sync_main.cu): nvcc accepts it, clang makes it an error in C++17.
#include <cstdio>

__global__ void bump(int *flag) { atomicAdd(flag, 1); }

int spin_until(volatile int *host_flag, int want) {
  register int polls = 0;
  while (*host_flag < want)
    ++polls;
  return polls;
}

int run(int *d_flag, cudaStream_t s) {
  bump<<<1, 1>>>(d_flag);  // expect: warning syncwatch-default-stream
  bump<<<1, 1, 0, s>>>(d_flag);
  return cudaStreamSynchronize(s);
}
