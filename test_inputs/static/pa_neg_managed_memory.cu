// Particle system on managed memory: the state arrays come from cudaMallocManaged and are
// snapshotted with cudaMemcpyAsync (HostToDevice and Default) into device history buffers.
// Managed memory counts as pinned for this rule -> no findings.
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

__global__ void integrate(float4* pos, float4* vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vel[i].y -= 9.81f * dt;
  pos[i].x += vel[i].x * dt;
  pos[i].y += vel[i].y * dt;
  pos[i].z += vel[i].z * dt;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  const int steps = 200, every = 20;
  const size_t bytes = size_t(n) * sizeof(float4);
  float4 *pos, *vel, *d_history;
  CUDA_CHECK(cudaMallocManaged(&pos, bytes));
  CUDA_CHECK(cudaMallocManaged(&vel, bytes));
  CUDA_CHECK(cudaMalloc(&d_history, bytes * (steps / every)));
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(float(i % 100), 10.f, float(i / 100 % 100), 1.f);
    vel[i] = make_float4(0.1f, 0.f, -0.1f, 0.f);
  }

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemcpyAsync(d_history, pos, bytes, cudaMemcpyHostToDevice, stream));
  for (int step = 1; step < steps; ++step) {
    integrate<<<(n + 255) / 256, 256, 0, stream>>>(pos, vel, n, 1e-3f);
    if (step % every == 0)
      CUDA_CHECK(cudaMemcpyAsync(d_history + size_t(step / every) * n, pos, bytes, cudaMemcpyDefault, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("pos[0].y = %f\n", pos[0].y);

  CUDA_CHECK(cudaFree(pos));
  CUDA_CHECK(cudaFree(vel));
  CUDA_CHECK(cudaFree(d_history));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
