// A solver that keeps its state in thrust containers but runs its kernels on a side stream:
// each container fill or copy goes to the legacy default stream (thrust's containers take no
// stream), and serializes with the blocking stream the solver creates.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/system/cuda/vector.h>

#include <cuda_runtime.h>

#include <vector>

__global__ void jacobi(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

int main() {
  const int n = 1 << 16;
  std::vector<float> initial(n, 1.0f);
  cudaStream_t solver;
  cudaStreamCreate(&solver);  // expect: warning syncwatch-blocking-stream

  thrust::device_vector<float> u(initial.begin(), initial.end());  // expect: warning syncwatch-default-stream
  thrust::device_vector<float> v(n);                                // expect: warning syncwatch-default-stream
  thrust::device_vector<float> w(n, 0.0f);                          // expect: warning syncwatch-default-stream
  thrust::cuda::vector<float> scratch = u;                          // expect: warning syncwatch-default-stream
  for (int it = 0; it < 100; ++it) {
    jacobi<<<(n + 255) / 256, 256, 0, solver>>>(thrust::raw_pointer_cast(u.data()),
                                                thrust::raw_pointer_cast(v.data()), n);
    u.swap(v);
  }
  cudaStreamSynchronize(solver);
  w = u;                                   // expect: warning syncwatch-default-stream
  thrust::host_vector<float> result = w;   // expect: warning syncwatch-default-stream
  cudaStreamDestroy(solver);
  return result[n / 2] > 0 ? 0 : 1;
}
