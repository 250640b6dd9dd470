// A host tool built by g++ only: it links the OpenMP stage and calls the CUDA runtime.
#include "omp_stage/stage.h"

#include "common/check.h"

#include <cstdio>

int main() {
  omp_stage::HostPool pool(1 << 20);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<float> values(1 << 20, 1.0f);
  const double uploaded = pool.upload(values, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("uploaded %.1f smoothed %.1f\n", uploaded, omp_stage::smooth(1 << 20, 8));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
