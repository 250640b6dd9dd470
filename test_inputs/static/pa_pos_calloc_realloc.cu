// Growing edge list: edge indices come from calloc and grow with realloc, edge weights
// come back into aligned_alloc memory; all stay pageable -> warnings on the index upload
// and on the weight readback.
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

__global__ void edge_weights(const int2* edges, int m, const float* node_deg, float* w) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < m) w[e] = rsqrtf(node_deg[edges[e].x] * node_deg[edges[e].y] + 1e-6f);
}

// d_edges must hold max_edges entries; returns the sum of the normalized weights.
double normalize_graph(int nodes, int max_edges, const float* d_deg, int2* d_edges, float* d_w, cudaStream_t s) {
  int cap = 1024, m = 0;
  int2* h_edges = static_cast<int2*>(calloc(cap, sizeof(int2)));
  for (int u = 0; u < nodes && m < max_edges; ++u) {
    for (int k = 1; k <= 3 && m < max_edges; ++k) {
      if (m == cap) {
        cap *= 2;
        h_edges = static_cast<int2*>(realloc(h_edges, cap * sizeof(int2)));
      }
      h_edges[m++] = make_int2(u, (u * 31 + k) % nodes);
    }
  }
  const size_t w_bytes = ((m * sizeof(float) + 63) / 64) * 64;
  float* h_w = static_cast<float*>(aligned_alloc(64, w_bytes));

  CUDA_CHECK(cudaMemcpyAsync(d_edges, h_edges, m * sizeof(int2), cudaMemcpyHostToDevice, s));  // expect: warning syncwatch-pageable-async-copy
  edge_weights<<<(m + 255) / 256, 256, 0, s>>>(d_edges, m, d_deg, d_w);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_w, d_w, m * sizeof(float), cudaMemcpyDeviceToHost, s));  // expect: warning syncwatch-pageable-async-copy
  CUDA_CHECK(cudaStreamSynchronize(s));

  double sum = 0.0;
  for (int e = 0; e < m; ++e) sum += h_w[e];
  free(h_edges);
  free(h_w);
  return sum;
}
