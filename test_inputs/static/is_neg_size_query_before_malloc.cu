// Sorting a CSR matrix with cuSPARSE, as MAGMA's sparse tools do: the buffer-size query
// queues no GPU work, so the cudaMalloc of the buffer it sized waits for nothing (silent).
// The sort itself runs on the handle's stream (set, non-blocking): its cudaFree after the
// stream sync is silent too.
#include <cuda_runtime.h>
#include <cusparse.h>

void sort_csr(int m, int n, int nnz, const int *rows, int *cols, int *perm) {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSetStream(handle, stream);
  cusparseMatDescr_t descr;
  cusparseCreateMatDescr(&descr);

  size_t bytes = 0;
  cusparseXcsrsort_bufferSizeExt(handle, m, n, nnz, rows, cols, &bytes);
  void *buffer = nullptr;
  cudaMalloc(&buffer, bytes);
  cusparseCreateIdentityPermutation(handle, nnz, perm);
  cusparseXcsrsort(handle, m, n, nnz, descr, rows, cols, perm, buffer);
  cudaStreamSynchronize(stream);
  cudaFree(buffer);

  cusparseDestroyMatDescr(descr);
  cusparseDestroy(handle);
  cudaStreamDestroy(stream);
}
