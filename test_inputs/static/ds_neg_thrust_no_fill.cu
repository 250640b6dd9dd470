// thrust containers that do no GPU work: default-constructed, returned and moved, and host
// vectors copied among themselves. The one fill happens in a kernel
// on the solver's own non-blocking stream. No finding.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cuda_runtime.h>

#include <utility>

__global__ void seed(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
}

thrust::device_vector<float> make_buffer() {
  thrust::device_vector<float> b;
  return b;
}

int main() {
  const int n = 4096;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  thrust::device_vector<float> empty;
  thrust::device_vector<float> buf = make_buffer();
  thrust::device_vector<float> moved = std::move(buf);
  moved.swap(empty);
  seed<<<(n + 255) / 256, 256, 0, s>>>(thrust::raw_pointer_cast(moved.data()), 0);
  thrust::host_vector<float> a(n, 2.0f);
  thrust::host_vector<float> b = a;
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  return static_cast<int>(b.size() - a.size()) + static_cast<int>(empty.size());
}
