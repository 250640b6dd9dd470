// Who paid for a blocking copy (issue 37's `threads` evidence): a training loop on the main
// thread, and a checkpoint writer thread, named with pthread_setname_np, that copies the
// weights into pageable memory and ends before the process does. The copy's cost must be
// the writer's, by name, although the writer is gone from /proc when syncwatch reports.
#include <cuda_runtime.h>
#include <pthread.h>

#include <cstdio>
#include <thread>
#include <vector>

__global__ void sgdStep(float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = w[i] * 0.999f + 0.001f;
}

static void writeCheckpoints(const float *weights, size_t n, int saves) {
  pthread_setname_np(pthread_self(), "ckpt_writer");
  std::vector<float> host(n);  // pageable: each copy holds this thread until it is done
  for (int s = 0; s < saves; ++s)
    cudaMemcpy(host.data(), weights, n * sizeof(float), cudaMemcpyDeviceToHost);  // CHECKPOINT COPY
}

int main() {
  const int n = 1 << 24;
  float *w = nullptr;
  cudaMalloc(&w, n * sizeof(float));
  cudaMemset(w, 0, n * sizeof(float));
  cudaStream_t train;
  cudaStreamCreateWithFlags(&train, cudaStreamNonBlocking);
  std::thread writer(writeCheckpoints, w, n, 20);
  for (int it = 0; it < 400; ++it) {
    sgdStep<<<(n + 255) / 256, 256, 0, train>>>(w, n);
    if (it % 40 == 0)
      cudaStreamSynchronize(train);  // STEP SYNC
  }
  writer.join();
  cudaStreamSynchronize(train);
  cudaFree(w);
  std::printf("done\n");
  return 0;
}
