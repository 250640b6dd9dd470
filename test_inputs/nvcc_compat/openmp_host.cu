// nvcc-flags: -Xcompiler -fopenmp
// plain-clang-flags: -fopenmp
// -Xcompiler -fopenmp: the host side uses OpenMP; <omp.h> is GCC's, which clang does not
// search (Debian's clang-22 ships none without libomp-22-dev).
#include <omp.h>
#include <vector>

__global__ void add_one(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.f;
}

float fill_and_upload(float *d, int n, cudaStream_t s) {
  std::vector<float> host(n);
#pragma omp parallel for num_threads(omp_get_max_threads())
  for (int i = 0; i < n; ++i) host[i] = float(i);
  cudaMemcpyAsync(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);  // expect: warning syncwatch-pageable-async-copy
  add_one<<<(n + 255) / 256, 256, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  return host[0];
}
