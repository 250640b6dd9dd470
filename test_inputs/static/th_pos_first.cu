// syncwatch-torch-host-sync: a case it reports.
#include <cuda_runtime.h>

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-torch-host-sync
  return 0;
}
