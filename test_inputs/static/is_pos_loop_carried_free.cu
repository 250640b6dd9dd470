// Loop-carried work: the buffer of the previous iteration is freed at the top of the next
// one while that iteration's kernel may still run; a helper frees after its caller's work.
#include <cuda_runtime.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

static void release(float* p) {
  cudaFree(p);  // expect: warning syncwatch-implicit-sync
}

void rolling(int steps, int n, cudaStream_t s) {
  float* prev = nullptr;
  for (int t = 0; t < steps; ++t) {
    cudaFree(prev);  // expect: warning syncwatch-implicit-sync
    float* cur;
    cudaMallocAsync(&cur, n * sizeof(float), s);
    fill<<<(n + 255) / 256, 256, 0, s>>>(cur, n, float(t));
    prev = cur;
  }
  cudaStreamSynchronize(s);
  cudaFree(prev);
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  rolling(8, 1 << 20, s);
  float* tmp;
  cudaMalloc(&tmp, 1024 * sizeof(float));
  fill<<<4, 256, 0, s>>>(tmp, 1024, 1.f);
  release(tmp);
  cudaStreamDestroy(s);
  return 0;
}
