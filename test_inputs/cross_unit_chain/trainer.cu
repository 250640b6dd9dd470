// The training loop. It sees the other files only through pipeline.h.
#include "pipeline.h"

__global__ void forward(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

int main() {
  const int n = 1 << 20;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *host = nullptr;
  CUDA_CHECK(cudaMallocHost(&host, n * sizeof(float)));

  // Three files away, memory.cu's cudaFree waits for this kernel (reported there).
  Stage a{device_alloc(n), n};
  forward<<<n / 256, 256, 0, stream>>>(a.activations, n);
  save_and_trim(a);

  // Drained first: the same chain of calls frees an idle device (silent).
  Stage b{device_alloc(n), n};
  forward<<<n / 256, 256, 0, stream>>>(b.activations, n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  trim_after_sync(b);

  // retire_all() syncs the device before it frees (silent).
  Stage c{device_alloc(n), n};
  forward<<<n / 256, 256, 0, stream>>>(c.activations, n);
  c.retire_all();

  // Through a lambda of this file, then pipeline.cu: the kernel is still running.
  Stage d{device_alloc(n), n};
  auto epoch = [&](Stage &s) {
    forward<<<n / 256, 256, 0, stream>>>(s.activations, n);
    end_of_epoch(s);
  };
  epoch(d);

  // A header template, instantiated here, retires each stage once the device is idle (silent).
  Stage rest[2] = {{device_alloc(n), n}, {device_alloc(n), n}};
  forward<<<n / 256, 256, 0, stream>>>(rest[0].activations, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  retire_each(rest, 2);
  staging_release(host);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
