// A program whose CUDA runtime is libcudart.so (as PyTorch's is), run while another tool
// holds CUPTI: its waits must still be timed, at these lines.
#include <cstdio>
#include <cstring>

#ifdef SW_PER_THREAD_DEFAULT_STREAM
// What cuda_runtime_api.h does under nvcc --default-stream per-thread.
#define cudaStreamSynchronize cudaStreamSynchronize_ptsz
#define cudaMemcpy cudaMemcpy_ptds
#endif
extern "C" int cudaStreamSynchronize(void *);
extern "C" int cudaDeviceSynchronize();
extern "C" int cudaMemcpy(void *, const void *, size_t, int);
extern "C" int cudaFree(void *);
extern "C" int cudaGetDeviceCount(int *);

struct Trainer {
  void *Stream = nullptr;
  void step() {
    cudaStreamSynchronize(Stream);  // syncwatch: the wait in the loop
  }
};

int main(int Argc, char **Argv) {
  int Devices = 0;
  cudaGetDeviceCount(&Devices);
  if (Argc > 1 && std::strcmp(Argv[1], "untimed") == 0) {
    std::printf("devices %d\n", Devices);  // no call syncwatch can time
    return 3;
  }
  Trainer T;
  for (int I = 0; I < 5; ++I)
    T.step();
  char Host[64], *Device = nullptr;
  cudaMemcpy(Host, Device, sizeof Host, 2);  // syncwatch: the blocking copy
  cudaDeviceSynchronize();                   // once, at the end: the program's own
  cudaFree(Device);                          // short: under the threshold
  std::printf("done %d\n", Devices);
  return 3;
}
