// Work and waits hidden behind calls: the loop's kernels are issued by a helper and by a
// lambda, and a helper called every iteration synchronizes. Each loop stalls the host.
#include <cuda_runtime.h>

#define LAUNCH_RELU(x, n, s) relu<<<((n) + 255) / 256, 256, 0, (s)>>>((x), (n))

__global__ void relu(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;
}

static void layer_forward(float* x, int n, cudaStream_t s) { LAUNCH_RELU(x, n, s); }

static void wait_for(cudaStream_t s) { cudaStreamSynchronize(s); }

void run_helper(float* x, int n, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) {
    layer_forward(x, n, s);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-sync-in-loop
  }
}

void run_lambda(float* x, int n, int layers, cudaStream_t s) {
  auto step = [&](int) { LAUNCH_RELU(x, n, s); };
  for (int l = 0; l < layers; ++l) {
    step(l);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-sync-in-loop
  }
}

void run_waiting_helper(float* x, int n, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) {
    LAUNCH_RELU(x, n, s);
    wait_for(s);  // expect: warning syncwatch-sync-in-loop
  }
}

void run_once(float* x, int n, int layers, cudaStream_t s) {
  for (int l = 0; l < layers; ++l) layer_forward(x, n, s);
  wait_for(s);
}
