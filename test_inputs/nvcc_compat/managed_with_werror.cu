// nvcc-flags: -Xcompiler -Werror
// plain-clang-flags: -Werror
// A __managed__ variable: clang's host-side parse warns that the attribute is ignored
// there; with the build's -Werror (for g++) that warning would fail the parse.
__managed__ int g_frames;

__global__ void count_frame() { atomicAdd(&g_frames, 1); }

int frames_after(int n) {
  for (int i = 0; i < n; ++i)
    count_frame<<<1, 1>>>();  // expect: note syncwatch-default-stream
  cudaDeviceSynchronize();
  return g_frames;
}
