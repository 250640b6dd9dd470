// Batch staging helper that calls cudaMemcpyAsync without the stream argument,
// silently relying on the default (legacy stream 0). No other stream in the
// file -> two notes, reported at the API name. The plain cudaMemcpy is not reported.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                  \
  do {                                                                    \
    cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %d (%s) at %s:%d\n", int(e_),           \
              cudaGetErrorName(e_), __FILE__, __LINE__);                  \
      exit(EXIT_FAILURE);                                                 \
    }                                                                     \
  } while (0)

struct Batch {
  float* features;  // [rows x cols], pinned host memory
  int* labels;      // [rows]
  int rows;
  int cols;
};

struct DeviceBatch {
  float* features;
  int* labels;
  float* label_weights;
};

void stage_batch(const Batch& host, DeviceBatch& dev, const float* class_weights,
                 int num_classes) {
  const size_t feat_bytes = size_t(host.rows) * host.cols * sizeof(float);
  const size_t label_bytes = size_t(host.rows) * sizeof(int);

  cudaMemcpyAsync(dev.features, host.features, feat_bytes, cudaMemcpyHostToDevice);  // expect: note syncwatch-default-stream
  cudaMemcpyAsync(dev.labels, host.labels, label_bytes, cudaMemcpyHostToDevice);  // expect: note syncwatch-default-stream
  CUDA_CHECK(cudaGetLastError());

  // Class weights are tiny and read-only: a plain synchronous copy.
  CUDA_CHECK(cudaMemcpy(dev.label_weights, class_weights,
                        num_classes * sizeof(float), cudaMemcpyHostToDevice));
}

int main() {
  Batch b{nullptr, nullptr, 512, 128};
  DeviceBatch d{};
  float weights[10] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
  CUDA_CHECK(cudaMallocHost(&b.features, size_t(b.rows) * b.cols * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&b.labels, b.rows * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d.features, size_t(b.rows) * b.cols * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d.labels, b.rows * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d.label_weights, sizeof(weights)));
  stage_batch(b, d, weights, 10);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("staged %d rows\n", b.rows);
  return 0;
}
