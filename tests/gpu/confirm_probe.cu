// syncwatch confirm's statuses on one program (tests/confirm_test.py): a tile loop whose
// per-tile synchronize the lint flags but that never stalls here, because each tile's kernel
// is tiny (not-observed); a verification path the recorded run does not take
// (not-exercised); a buffer freed while a long kernel runs (confirmed).
// Usage: confirm_probe [--verify]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

__global__ void scale(float *tile, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tile[i] *= factor;
}

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

int main(int argc, char **argv) {
  bool verify = argc > 1 && std::strcmp(argv[1], "--verify") == 0;
  const int tiles = 64, tileSize = 256;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *d_image;
  CHECK(cudaMalloc(&d_image, tiles * tileSize * sizeof(float)));
  CHECK(cudaMemsetAsync(d_image, 0, tiles * tileSize * sizeof(float), stream));
  for (int t = 0; t < tiles; ++t) {
    scale<<<1, tileSize, 0, stream>>>(d_image + t * tileSize, tileSize, 1.01f);
    CHECK(cudaStreamSynchronize(stream));  // TILE SYNC: flagged, never stalls (tiny kernels)
  }
  if (verify) {
    std::vector<float> host(tiles * tileSize);
    CHECK(cudaMemcpyAsync(host.data(), d_image, host.size() * sizeof(float), cudaMemcpyDeviceToHost,
                          stream));  // VERIFY COPY: pageable, on a path the recorded run skips
    CHECK(cudaStreamSynchronize(stream));
    std::printf("first pixel %f\n", host[0]);
  }
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  spin<<<1, 1, 0, stream>>>(static_cast<long long>(30.0 * khz));  // 30 ms of GPU work
  CHECK(cudaFree(d_image));  // FREE: waits for the spin (confirmed)
  CHECK(cudaStreamDestroy(stream));
  std::printf("done\n");
  return 0;
}
