// Teardown that drains a set of streams, skipping the ones never created:
// `if (streams[i]) cudaStreamSynchronize(streams[i])` in a loop over the set (ggml's
// allreduce.cu does this before freeing). Where the handle is null no work runs on it, so
// after the loop the set is drained -> the frees are silent. The look-alikes that still warn
// are the last two functions: a guard on one element, and a guard on another stream.
#include <cuda_runtime.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

struct Pipeline {
  int n_devices = 0;
  cudaStream_t streams[8] = {};
  float* buffers[8] = {};
};

void run(Pipeline* p, int n) {
  for (int i = 0; i < p->n_devices; ++i)
    if (p->streams[i]) fill<<<(n + 255) / 256, 256, 0, p->streams[i]>>>(p->buffers[i], n, 1.f);
}

void teardown(Pipeline* p, int n) {
  run(p, n);
  for (int i = 0; i < p->n_devices; ++i) {
    if (p->streams[i]) {
      cudaStreamSynchronize(p->streams[i]);
    }
  }
  for (int i = 0; i < p->n_devices; ++i) {
    cudaFree(p->buffers[i]);
    if (p->streams[i] != nullptr) cudaStreamDestroy(p->streams[i]);
  }
}

void teardown_pointers(cudaStream_t* streams, float** buffers, int count, int n) {
  for (int i = 0; i < count; ++i) fill<<<(n + 255) / 256, 256, 0, streams[i]>>>(buffers[i], n, 2.f);
  for (int d = 0; d < count; ++d) {
    if (streams[d] == nullptr) continue;
    cudaStreamSynchronize(streams[d]);
  }
  cudaFree(buffers[0]);
}

void one_element(cudaStream_t* streams, float** buffers, int n) {
  fill<<<(n + 255) / 256, 256, 0, streams[0]>>>(buffers[0], n, 3.f);
  fill<<<(n + 255) / 256, 256, 0, streams[1]>>>(buffers[1], n, 3.f);
  if (streams[0]) cudaStreamSynchronize(streams[0]);
  cudaFree(buffers[0]);  // expect: warning syncwatch-implicit-sync (streams[1]'s kernel)
}

void other_stream(cudaStream_t a, cudaStream_t b, float* d, int n) {
  fill<<<(n + 255) / 256, 256, 0, b>>>(d, n, 4.f);
  if (a) cudaStreamSynchronize(a);
  cudaFree(d);  // expect: warning syncwatch-implicit-sync
}
