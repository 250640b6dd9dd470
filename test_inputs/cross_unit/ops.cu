// The stages train.cu calls. Each file alone says nothing here: the callers are in
// train.cu. With train.cu's summary, syncwatch-lint's second phase knows that release() is
// called while scale_async()'s kernel still runs.
#include "ops.h"

#include <cstdio>

__global__ void scale(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= 2.0f;
}

void scale_async(float *data, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(data, n);
}

void finish(cudaStream_t stream) { cudaStreamSynchronize(stream); }

void release(float *data) {
  cudaFree(data);  // expect: syncwatch-implicit-sync (train.cu: called while scale_async's kernel runs)
}

void log_step(int step) { std::printf("step %d\n", step); }

void fetch(float *host, const float *dev, int n, cudaStream_t stream) {
  cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
}
