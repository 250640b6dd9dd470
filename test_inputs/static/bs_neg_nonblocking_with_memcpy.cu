// Point-cloud voxelizer: the worker stream is created with cudaStreamNonBlocking,
// so the synchronous cudaMemcpy / cudaMemset on the legacy stream do not serialize
// with it. Not a blocking stream, and cudaMemcpy is not a default-stream finding -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void voxelize(const float3* pts, int n, float inv_voxel, int3 dims, unsigned int* occ) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = int(pts[i].x * inv_voxel), y = int(pts[i].y * inv_voxel), z = int(pts[i].z * inv_voxel);
  if (x < 0 || y < 0 || z < 0 || x >= dims.x || y >= dims.y || z >= dims.z) return;
  atomicOr(&occ[(size_t(z) * dims.y + y) * dims.x + x], 1u);
}

int voxel_count(const float3* h_pts, int n, float voxel, int3 dims) {
  const size_t cells = size_t(dims.x) * dims.y * dims.z;
  cudaStream_t worker;
  CUDA_CHECK(cudaStreamCreateWithFlags(&worker, cudaStreamNonBlocking));

  float3* d_pts;
  unsigned int* d_occ;
  CUDA_CHECK(cudaMalloc(&d_pts, n * sizeof(float3)));
  CUDA_CHECK(cudaMalloc(&d_occ, cells * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemset(d_occ, 0, cells * sizeof(unsigned int)));  // expect: note syncwatch-sync-memcpy
  CUDA_CHECK(cudaMemcpy(d_pts, h_pts, n * sizeof(float3), cudaMemcpyHostToDevice));  // expect: note syncwatch-sync-memcpy (only the memset before it: the callers' work)

  voxelize<<<(n + 255) / 256, 256, 0, worker>>>(d_pts, n, 1.f / voxel, dims, d_occ);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(worker));

  unsigned int* h_occ = static_cast<unsigned int*>(malloc(cells * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemcpy(h_occ, d_occ, cells * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  int count = 0;
  for (size_t c = 0; c < cells; ++c) count += h_occ[c] != 0;
  free(h_occ);
  CUDA_CHECK(cudaFree(d_pts));
  CUDA_CHECK(cudaFree(d_occ));
  CUDA_CHECK(cudaStreamDestroy(worker));
  return count;
}
