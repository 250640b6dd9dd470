// nvcc-flags:
// plain-clang-flags:
// clock(), CLOCKS_PER_SEC and ::isnan without an #include: nvcc's implicit cuda_runtime.h
// reaches <time.h> and <math.h>; clang's runtime wrapper does not.
__global__ void step(float *p) { p[threadIdx.x] += 1.f; }

double timed_steps(float *d, float *pageable_host, int steps, cudaStream_t s) {
  clock_t start = clock();
  for (int i = 0; i < steps; ++i) {
    step<<<1, 32, 0, s>>>(d);
    cudaStreamSynchronize(s);  // expect: warning syncwatch-sync-in-loop
  }
  cudaMemcpyAsync(pageable_host, d, 32 * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  double secs = double(clock() - start) / CLOCKS_PER_SEC;
  return isnan(pageable_host[0]) ? -1.0 : secs;
}
