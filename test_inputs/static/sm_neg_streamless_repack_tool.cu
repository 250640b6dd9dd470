// Offline checkpoint repacker with no streams and no kernels: it moves tensors with
// cudaMemcpy2D, cudaMemcpy, cudaMemcpyToSymbol and clears padding with cudaMemset2D. Without
// non-default streams the synchronous calls are not reported -> no findings.
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

__constant__ int c_layout[4];  // rows, cols, padded_cols, version

// Repacks a row-major rows x cols matrix into rows x padded_cols (zero padding on the right).
std::vector<float> repack(const std::vector<float>& src, int rows, int cols, int padded_cols) {
  const size_t src_pitch = cols * sizeof(float), dst_pitch = padded_cols * sizeof(float);
  float *d_src, *d_dst;
  CUDA_CHECK(cudaMalloc(&d_src, src_pitch * rows));
  CUDA_CHECK(cudaMalloc(&d_dst, dst_pitch * rows));
  CUDA_CHECK(cudaMemcpy(d_src, src.data(), src_pitch * rows, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset2D(d_dst, dst_pitch, 0, dst_pitch, rows));
  CUDA_CHECK(cudaMemcpy2D(d_dst, dst_pitch, d_src, src_pitch, src_pitch, rows, cudaMemcpyDeviceToDevice));
  const int layout[4] = {rows, cols, padded_cols, 2};
  CUDA_CHECK(cudaMemcpyToSymbol(c_layout, layout, sizeof(layout)));

  std::vector<float> out(size_t(rows) * padded_cols);
  CUDA_CHECK(cudaMemcpy2D(out.data(), dst_pitch, d_dst, dst_pitch, dst_pitch, rows, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_src));
  CUDA_CHECK(cudaFree(d_dst));
  return out;
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? atoi(argv[1]) : 1000, cols = 1000;
  std::vector<float> w(size_t(rows) * cols, 0.5f);
  std::vector<float> packed = repack(w, rows, cols, 1024);
  printf("packed %zu floats\n", packed.size());
  return 0;
}
