// Double buffering: each iteration waits for the event recorded on its buffer two
// iterations earlier, while the previous iteration's work still runs: a throttle, not a
// stall -> silent. The second loop waits for the event it just recorded: a stall.
#include <cuda_runtime.h>

__global__ void blur(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.f;
}

void stream_frames(float* h_frames[2], float* d_in[2], float* d_out[2], int n, int frames,
                   cudaStream_t s[2]) {
  cudaEvent_t ready[2];
  for (int b = 0; b < 2; ++b) cudaEventCreateWithFlags(&ready[b], cudaEventDisableTiming);
  for (int f = 0; f < frames; ++f) {
    const int b = f % 2;
    cudaEventSynchronize(ready[b]);
    for (int i = 0; i < n; ++i) h_frames[b][i] = float(f + i);
    cudaMemcpyAsync(d_in[b], h_frames[b], n * sizeof(float), cudaMemcpyHostToDevice, s[b]);
    blur<<<(n + 255) / 256, 256, 0, s[b]>>>(d_in[b], d_out[b], n);
    cudaEventRecord(ready[b], s[b]);
  }
  for (int b = 0; b < 2; ++b) cudaEventSynchronize(ready[b]);
}

void stream_frames_serial(float* h_frame, float* d_in, float* d_out, int n, int frames, cudaStream_t s) {
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  for (int f = 0; f < frames; ++f) {
    cudaMemcpyAsync(d_in, h_frame, n * sizeof(float), cudaMemcpyHostToDevice, s);
    blur<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    cudaEventRecord(ready, s);
    cudaEventSynchronize(ready);  // expect: warning syncwatch-sync-in-loop
  }
}
