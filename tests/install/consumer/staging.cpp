// A host-side staging helper, compiled by g++: the copy's source is pageable (malloc), so
// cudaMemcpyAsync is synchronous for the host.
#include <cuda_runtime.h>
#include <cstdlib>

void stage(float *device, std::size_t n, cudaStream_t stream) {
  float *host = static_cast<float *>(std::malloc(n * sizeof(float)));
  for (std::size_t i = 0; i < n; ++i)
    host[i] = 1.0f;
  cudaMemcpyAsync(device, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
  std::free(host);
}
