// FP class: a cuSPARSE buffer-size query (cusparseXcsrsort_bufferSizeExt) is taken as stream
// work in flight, so the cudaMalloc after it gets an implicit-sync note "while stream work
// is still running". A size query issues no GPU work (docs/rules/syncwatch-default-stream.md
// lists size queries among the library calls that are not work).
// From MAGMA sparse/blas/magma_dmatrixtools_gpu.cu:196 (magma_dcsr_sort_gpu).
#include <cuda_runtime.h>
#include <cusparse.h>

void sort_csr(int m, int n, int nnz, const int *rows, const int *cols) {
  cusparseHandle_t h;
  cusparseCreate(&h);
  size_t bytes = 0;
  void *buf = nullptr;
  cusparseXcsrsort_bufferSizeExt(h, m, n, nnz, rows, cols, &bytes);
  cudaMalloc(&buf, bytes);      // note: implicit-sync "while stream work is still running"
  cudaFree(buf);
  cusparseDestroy(h);
}
