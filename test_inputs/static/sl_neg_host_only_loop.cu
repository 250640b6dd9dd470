// Ensemble forecast: members are queued on their own streams with a completion event each;
// a second loop only waits on each member's event and post-processes pinned results on the
// host. That loop issues no GPU work -> no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void advect(float* field, int n, float wind, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = field[i];
  for (int t = 0; t < steps; ++t) v = v * 0.999f + wind * 1e-3f;
  field[i] = v;
}

// d_fields: members * n floats; h_fields: pinned, same size (both allocated by the caller).
double ensemble_mean(float* d_fields, float* h_fields, int members, int n,
                     std::vector<cudaStream_t>& streams, std::vector<cudaEvent_t>& done) {
  for (int m = 0; m < members; ++m) {
    float* field = d_fields + size_t(m) * n;
    advect<<<(n + 255) / 256, 256, 0, streams[m]>>>(field, n, 0.5f + 0.1f * m, 100);
    CUDA_CHECK(cudaMemcpyAsync(h_fields + size_t(m) * n, field, n * sizeof(float), cudaMemcpyDeviceToHost, streams[m]));
    CUDA_CHECK(cudaEventRecord(done[m], streams[m]));
  }

  double total = 0.0;
  for (int m = 0; m < members; ++m) {
    CUDA_CHECK(cudaEventSynchronize(done[m]));
    const float* result = h_fields + size_t(m) * n;
    double member_sum = 0.0;
    for (int i = 0; i < n; ++i) member_sum += result[i];
    total += member_sum / n;
  }
  return total / members;
}
