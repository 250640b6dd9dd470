// Two stacks that end at one line, the shape of HeCBench streamCreateCopyDestroy's
// main.cu:75: a helper's pageable cudaMemcpyAsync reached from a loop of copies, and from a
// second loop where each copy is followed at once by cudaStreamSynchronize. The runtime
// must report one finding at the helper's line, with both stacks as evidence.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static void upload(float *Device, const float *Host, size_t Bytes, cudaStream_t S) {
  cudaMemcpyAsync(Device, Host, Bytes, cudaMemcpyHostToDevice, S);  // TWO-STACKS
}

int main() {
  const size_t Bytes = 8 << 20;
  std::vector<float> Host(Bytes / sizeof(float), 1.0f);  // pageable
  float *Device = nullptr;
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  cudaMalloc(&Device, Bytes);
  for (int I = 0; I < 64; ++I)
    upload(Device, Host.data(), Bytes, S);
  for (int I = 0; I < 8; ++I) {
    upload(Device, Host.data(), Bytes, S);
    cudaStreamSynchronize(S);
  }
  cudaStreamSynchronize(S);
  std::printf("two stacks done\n");
  return 0;
}
