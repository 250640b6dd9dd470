// A relaxed capture (as ggml captures its compute graph) tolerates cudaMalloc, a copy from
// pageable host memory on the captured stream (measured: it becomes a node of the graph) and a
// wait for another stream, but not a sync of the captured stream: that conflicts with any
// capture.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void add_bias(float* y, const float* bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += bias[i % 64];
}

void capture_layer(cudaStream_t s, cudaStream_t loader, float* y, int n, cudaGraph_t* out) {
  float* bias_host = (float*)malloc(64 * sizeof(float));
  for (int i = 0; i < 64; ++i) bias_host[i] = 0.01f * i;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  float* bias;
  cudaMalloc(&bias, 64 * 1024 * sizeof(float));
  cudaMemcpyAsync(bias, bias_host, 64 * 1024 * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: warning syncwatch-pageable-async-copy
  add_bias<<<(n + 255) / 256, 256, 0, s>>>(y, bias, n);
  cudaStreamSynchronize(loader);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
  cudaStreamEndCapture(s, out);
  free(bias_host);
}

int main() {
  cudaStream_t s, loader;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&loader, cudaStreamNonBlocking);
  float* y;
  cudaMalloc(&y, 1024 * sizeof(float));
  cudaGraph_t g;
  capture_layer(s, loader, y, 1024, &g);
  cudaGraphDestroy(g);
  cudaFree(y);
  return 0;
}
