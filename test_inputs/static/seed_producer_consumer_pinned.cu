// Producer/consumer pipeline with pinned double buffers: host callbacks fill / drain pinned
// slots in stream order (cudaLaunchHostFunc), events hand each slot between the producer and
// consumer streams; the host never blocks inside the loop -> no findings.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct SlotTask { float* in; const float* out; int frame, n; double* checksum; };

static void CUDART_CB produce(void* p) {
  auto* t = static_cast<SlotTask*>(p);
  for (int i = 0; i < t->n; ++i) t->in[i] = float((i + t->frame) % 1024) / 1024.f;
}
static void CUDART_CB consume(void* p) {
  auto* t = static_cast<SlotTask*>(p);
  for (int i = 0; i < t->n; ++i) *t->checksum += t->out[i];
}

__global__ void infer(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.f / (1.f + __expf(-in[i]));
}

double run_pipeline(int n, int frames) {
  const size_t bytes = size_t(n) * sizeof(float);
  cudaStream_t prod, cons;
  cudaEvent_t filled[2], drained[2];
  float *h_in, *h_out, *d_in, *d_out;
  CUDA_CHECK(cudaStreamCreateWithFlags(&prod, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&cons, cudaStreamNonBlocking));
  for (int k = 0; k < 2; ++k) {
    CUDA_CHECK(cudaEventCreateWithFlags(&filled[k], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&drained[k], cudaEventDisableTiming));
  }
  CUDA_CHECK(cudaMallocHost(&h_in, 2 * bytes));
  CUDA_CHECK(cudaMallocHost(&h_out, 2 * bytes));
  CUDA_CHECK(cudaMalloc(&d_in, 2 * bytes));
  CUDA_CHECK(cudaMalloc(&d_out, 2 * bytes));
  double checksum = 0.0;
  std::vector<SlotTask> tasks(frames);

  for (int f = 0; f < frames; ++f) {
    const int slot = f & 1;
    tasks[f] = {h_in + slot * n, h_out + slot * n, f, n, &checksum};
    if (f >= 2) CUDA_CHECK(cudaStreamWaitEvent(prod, drained[slot], 0));
    CUDA_CHECK(cudaLaunchHostFunc(prod, produce, &tasks[f]));
    CUDA_CHECK(cudaMemcpyAsync(d_in + slot * n, h_in + slot * n, bytes, cudaMemcpyHostToDevice, prod));
    CUDA_CHECK(cudaEventRecord(filled[slot], prod));
    CUDA_CHECK(cudaStreamWaitEvent(cons, filled[slot], 0));
    infer<<<(n + 255) / 256, 256, 0, cons>>>(d_in + slot * n, d_out + slot * n, n);
    CUDA_CHECK(cudaMemcpyAsync(h_out + slot * n, d_out + slot * n, bytes, cudaMemcpyDeviceToHost, cons));
    CUDA_CHECK(cudaEventRecord(drained[slot], cons));
    CUDA_CHECK(cudaLaunchHostFunc(cons, consume, &tasks[f]));
  }
  CUDA_CHECK(cudaStreamSynchronize(prod));
  CUDA_CHECK(cudaStreamSynchronize(cons));

  CUDA_CHECK(cudaFreeHost(h_in));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  for (int k = 0; k < 2; ++k) {
    CUDA_CHECK(cudaEventDestroy(filled[k]));
    CUDA_CHECK(cudaEventDestroy(drained[k]));
  }
  CUDA_CHECK(cudaStreamDestroy(prod));
  CUDA_CHECK(cudaStreamDestroy(cons));
  return checksum;
}
