// A training loop that reads the loss back every step and calls cudaDeviceSynchronize "to be
// safe" right before the readback: the cudaMemcpy waits for the same kernels, so the sync is a
// second round trip per step. The legacy-stream launches are notes (nothing else to serialize
// with in this file); the sync is also a sync in a loop.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void forward_backward(const float* x, float* w, float* loss, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float err = w[i] * x[i] - 1.f;
  w[i] -= lr * err * x[i];
  atomicAdd(loss, err * err);
}

__global__ void clear(float* loss) { *loss = 0.f; }

float train(const float* d_x, float* d_w, float* d_loss, int n, int steps) {
  float h_loss = 0.f;
  for (int step = 0; step < steps; ++step) {
    clear<<<1, 1>>>(d_loss);                                           // expect: note syncwatch-default-stream
    forward_backward<<<(n + 255) / 256, 256>>>(d_x, d_w, d_loss, n, 0.01f);  // expect: note syncwatch-default-stream
    CUDA_CHECK(cudaDeviceSynchronize());  // expect: warning syncwatch-sync-in-loop; warning syncwatch-redundant-sync
    CUDA_CHECK(cudaMemcpy(&h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost));
    if (step % 100 == 0)
      printf("step %d loss %f\n", step, h_loss / n);
  }
  return h_loss;
}
