// syncwatch-torch-host-sync: a look-alike it must leave alone.
#include <cuda_runtime.h>

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamSynchronize(s);
  return 0;
}
