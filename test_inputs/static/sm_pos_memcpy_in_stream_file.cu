// Object detector that owns a non-blocking stream but still uses synchronous copies:
// cudaMemcpy of the anchors and a cudaMemset of the counters -> sync-memcpy notes (nothing is
// in flight at them), since this file uses streams; the cudaMemcpyToSymbol of the thresholds
// is not reported.
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

__constant__ float c_thresholds[2];  // score, iou

__global__ void decode_boxes(const float* scores, const float4* anchors, int n, float4* boxes, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || scores[i] < c_thresholds[0]) return;
  int slot = atomicAdd(count, 1);
  boxes[slot] = anchors[i];
}

class Detector {
 public:
  explicit Detector(int anchors) : n_(anchors) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_anchors_, n_ * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_boxes_, n_ * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_count_, sizeof(int)));
  }

  void load_anchors(const std::vector<float4>& anchors, float score_thr, float iou_thr) {
    CUDA_CHECK(cudaMemcpy(d_anchors_, anchors.data(), n_ * sizeof(float4), cudaMemcpyHostToDevice));  // expect: note syncwatch-sync-memcpy
    const float thr[2] = {score_thr, iou_thr};
    CUDA_CHECK(cudaMemcpyToSymbol(c_thresholds, thr, sizeof(thr)));
  }

  void detect(const float* d_scores, int* h_count_pinned) {
    CUDA_CHECK(cudaMemset(d_count_, 0, sizeof(int)));  // expect: note syncwatch-sync-memcpy
    decode_boxes<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_scores, d_anchors_, n_, d_boxes_, d_count_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_count_pinned, d_count_, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  ~Detector() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_anchors_);
    cudaFree(d_boxes_);
    cudaFree(d_count_);
    cudaStreamDestroy(stream_);
  }

 private:
  int n_;
  cudaStream_t stream_ = nullptr;
  float4 *d_anchors_ = nullptr, *d_boxes_ = nullptr;
  int* d_count_ = nullptr;
};
