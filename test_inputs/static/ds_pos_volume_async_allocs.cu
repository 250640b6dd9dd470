// CT volume preprocessing using stream-ordered allocation and 3D copies, all on
// the legacy stream: stream written as 0 / nullptr, or omitted for the 3D copy
// and the 2D memset (reported at the API name). No other stream -> four notes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

void upload_volume(const short* h_vox, int nx, int ny, int nz, cudaPitchedPtr* out) {
  cudaExtent ext = make_cudaExtent(nx * sizeof(short), ny, nz);
  CUDA_CHECK(cudaMalloc3D(out, ext));

  // Scratch slice used by the windowing pass.
  short* d_scratch = nullptr;
  CUDA_CHECK(cudaMallocAsync(&d_scratch, ext.width * ny, 0));  // expect: note syncwatch-default-stream

  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(const_cast<short*>(h_vox), nx * sizeof(short), nx, ny);
  p.dstPtr = *out;
  p.extent = ext;
  p.kind = cudaMemcpyHostToDevice;
  CUDA_CHECK(cudaMemcpy3DAsync(&p));  // expect: note syncwatch-default-stream

  // Zero the first slice (air padding) of the pitched volume.
  CUDA_CHECK(cudaMemset2DAsync(out->ptr, out->pitch, 0, nx * sizeof(short), ny));  // expect: note syncwatch-default-stream

  CUDA_CHECK(cudaFreeAsync(d_scratch, nullptr));  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaDeviceSynchronize());
}

int main() {
  const int nx = 256, ny = 256, nz = 128;
  short* h = static_cast<short*>(malloc(size_t(nx) * ny * nz * sizeof(short)));
  for (size_t i = 0; i < size_t(nx) * ny * nz; ++i) h[i] = short(i % 2048 - 1024);
  cudaPitchedPtr vol;
  upload_volume(h, nx, ny, nz, &vol);
  printf("pitch = %zu\n", vol.pitch);
  CUDA_CHECK(cudaFree(vol.ptr));
  free(h);
  return 0;
}
