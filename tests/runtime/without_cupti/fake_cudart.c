/* A CUDA runtime whose blocking calls take a known time on the host (a busy wait, the way a
 * synchronize spins): cudaStreamSynchronize 3 ms, cudaDeviceSynchronize 2 ms, cudaMemcpy
 * 2 ms, cudaFree 0.1 ms (under syncwatch's 1 ms threshold); their per-thread default stream
 * entry points the same. Its symbols carry libcudart's
 * version node, so the program's references are versioned, as against the real one. */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

static uint64_t nowNs(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (uint64_t)T.tv_sec * 1000000000u + (uint64_t)T.tv_nsec;
}
static void busy(uint64_t Ns) {
  uint64_t End = nowNs() + Ns;
  while (nowNs() < End) {
  }
}
int cudaStreamSynchronize(void *Stream) { (void)Stream; busy(3000000); return 0; }
int cudaDeviceSynchronize(void) { busy(2000000); return 0; }
int cudaMemcpy(void *Dst, const void *Src, size_t N, int Kind) { (void)Dst, (void)Src, (void)N, (void)Kind; busy(2000000); return 0; }
int cudaFree(void *P) { (void)P; busy(100000); return 0; }
int cudaGetDeviceCount(int *N) { *N = 1; return 0; }
/* the per-thread default stream entry points (nvcc --default-stream per-thread) */
int cudaStreamSynchronize_ptsz(void *Stream) { return cudaStreamSynchronize(Stream); }
int cudaMemcpy_ptds(void *Dst, const void *Src, size_t N, int Kind) { return cudaMemcpy(Dst, Src, N, Kind); }
