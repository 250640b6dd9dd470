// The look-alike of rs_neg_sync_on_error_path.cu's FatalError: here the sync is the loop's
// own, every iteration, and the throw comes after the loop - the loop still stalls the host
// each time round (reported), and a sync right before a throw inside the loop body does not.
#include <cuda_runtime.h>

#include <stdexcept>

__global__ void advance(float *state, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] += 1.0f;
}

void run_steps(float *state, int n, int steps, cudaStream_t stream) {
  for (int s = 0; s < steps; ++s) {
    advance<<<(n + 255) / 256, 256, 0, stream>>>(state, n);
    cudaStreamSynchronize(stream);  // expect: warning syncwatch-sync-in-loop
  }
  throw std::runtime_error("run_steps: the simulation diverged");
}

void run_checked(float *state, int n, int steps, cudaStream_t stream, const int *host_flag) {
  for (int s = 0; s < steps; ++s) {
    advance<<<(n + 255) / 256, 256, 0, stream>>>(state, n);
    if (*host_flag != 0) {
      cudaStreamSynchronize(stream);
      throw std::runtime_error("run_checked: stopped");
    }
  }
}
