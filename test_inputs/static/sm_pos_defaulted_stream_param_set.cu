// The look-alike that must still warn: the same `cudaStream_t stream = nullptr` operator,
// but one call gives it a stream the program created. That stream now runs beside the
// legacy one, so a synchronous cudaMemcpy on the legacy stream costs concurrency; and the
// cudaFree waits for the side stream's launch.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

template <typename T>
__global__ void scale_kernel(T *data, T alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= alpha;
}

namespace device {
template <typename T>
class Scale {
 public:
  struct Arguments { T *data; T alpha; int n; };
  cudaError_t operator()(Arguments const &args, cudaStream_t stream = nullptr) {
    scale_kernel<T><<<(args.n + 255) / 256, 256, 0, stream>>>(args.data, args.alpha, args.n);
    return cudaGetLastError();
  }
};
}  // namespace device

struct Pipeline {
  cudaStream_t side = nullptr;
  device::Scale<float> op;
  void warm(float *d, int n) { op({d, 1.f, n}, side); }
};

int main() {
  const int n = 1 << 16;
  std::vector<float> host(n, 1.f);
  float *d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  Pipeline p;
  cudaStreamCreateWithFlags(&p.side, cudaStreamNonBlocking);
  p.warm(d, n);
  p.op({d, 2.f, n});
  cudaMemcpy(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);  // expect: warning syncwatch-sync-memcpy
  std::printf("%f\n", host[0]);
  cudaStreamDestroy(p.side);
  cudaFree(d);  // expect: warning syncwatch-implicit-sync
  return 0;
}
