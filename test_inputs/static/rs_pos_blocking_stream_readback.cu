// Batched inference on a stream created with cudaStreamCreate (blocking): each batch is
// synchronized, then its scores are copied back with a synchronous cudaMemcpy. A blocking
// stream's work comes before a legacy-stream copy, so the copy already waits for the batch.
#include <cuda_runtime.h>
#include <vector>

__global__ void score(const float* feats, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.f;
  for (int c = 0; c < cols; ++c) acc += feats[r * cols + c];
  out[r] = acc / cols;
}

void infer(const std::vector<const float*>& d_batches, float* d_out, float* h_out, int rows, int cols) {
  cudaStream_t s;
  cudaStreamCreate(&s);  // expect: warning syncwatch-blocking-stream
  for (const float* d_feats : d_batches) {
    score<<<(rows + 127) / 128, 128, 0, s>>>(d_feats, d_out, rows, cols);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-sync-in-loop; warning syncwatch-redundant-sync
    // copy the scores of this batch back
    cudaMemcpy(h_out, d_out, rows * sizeof(float), cudaMemcpyDeviceToHost);  // expect: note syncwatch-sync-memcpy
    h_out += rows;
  }
  cudaStreamDestroy(s);
}
