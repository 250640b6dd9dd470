// N-body time stepping that calls cudaDeviceSynchronize after every step's launches "to be
// safe": the sync sits in a loop whose body launches kernels -> one sync-in-loop warning.
// The final cudaDeviceSynchronize after the loop is silent.
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

__global__ void accelerations(const float4* pos, float3* acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 a = make_float3(0.f, 0.f, 0.f);
  for (int j = 0; j < n; ++j) {
    float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, dz = pos[j].z - pos[i].z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-4f);
    float s = pos[j].w * inv * inv * inv;
    a.x += dx * s; a.y += dy * s; a.z += dz * s;
  }
  acc[i] = a;
}

__global__ void leapfrog(float4* pos, float3* vel, const float3* acc, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vel[i].x += acc[i].x * dt; vel[i].y += acc[i].y * dt; vel[i].z += acc[i].z * dt;
  pos[i].x += vel[i].x * dt; pos[i].y += vel[i].y * dt; pos[i].z += vel[i].z * dt;
}

void simulate(float4* d_pos, float3* d_vel, float3* d_acc, int n, int steps, float dt) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int blocks = (n + 127) / 128;
  for (int step = 0; step < steps; ++step) {
    accelerations<<<blocks, 128, 0, s>>>(d_pos, d_acc, n);
    leapfrog<<<blocks, 128, 0, s>>>(d_pos, d_vel, d_acc, n, dt);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());  // expect: warning syncwatch-sync-in-loop
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaStreamDestroy(s));
}
