// Mesh streaming: vertices live in a new[] array and are uploaded chunk by chunk through a
// local alias plus pointer arithmetic; vertex colors are copied out of a new[] packed blob at a
// byte offset through reinterpret_cast -> two pageable-async-copy warnings.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct Vertex { float x, y, z; };

__global__ void transform_vertices(Vertex* v, int n, float scale, float3 t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  v[i].x = v[i].x * scale + t.x;
  v[i].y = v[i].y * scale + t.y;
  v[i].z = v[i].z * scale + t.z;
}

int main(int argc, char** argv) {
  const int verts = argc > 1 ? atoi(argv[1]) : (1 << 20) + 123;
  const int chunk = 1 << 16;
  const size_t header_bytes = argc > 2 ? size_t(atoi(argv[2])) : 64;
  const size_t color_bytes = size_t(verts) * sizeof(float4);

  Vertex* h_verts = new Vertex[verts];
  for (int i = 0; i < verts; ++i) h_verts[i] = {float(i % 97), float(i % 89), float(i % 83)};
  unsigned char* h_packed = new unsigned char[header_bytes + color_bytes];
  memset(h_packed, 0x3f, header_bytes + color_bytes);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Vertex* d_verts;
  float4* d_colors;
  CUDA_CHECK(cudaMalloc(&d_verts, size_t(verts) * sizeof(Vertex)));
  CUDA_CHECK(cudaMalloc(&d_colors, color_bytes));

  const Vertex* cursor = h_verts;
  for (int off = 0; off < verts; off += chunk) {
    const int count = std::min(chunk, verts - off);
    CUDA_CHECK(cudaMemcpyAsync(d_verts + off, cursor + off, count * sizeof(Vertex), cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
    transform_vertices<<<(count + 255) / 256, 256, 0, stream>>>(d_verts + off, count, 0.5f, make_float3(1.f, 0.f, -1.f));
    CUDA_CHECK(cudaGetLastError());
  }
  const float4* colors = reinterpret_cast<const float4*>(h_packed + header_bytes);
  CUDA_CHECK(cudaMemcpyAsync(d_colors, colors, color_bytes, cudaMemcpyHostToDevice, stream));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  CUDA_CHECK(cudaFree(d_verts));
  CUDA_CHECK(cudaFree(d_colors));
  CUDA_CHECK(cudaStreamDestroy(stream));
  delete[] h_verts;
  delete[] h_packed;
  return 0;
}
