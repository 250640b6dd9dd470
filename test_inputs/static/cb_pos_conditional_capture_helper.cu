// A capture begun only under a condition (ggml: `if (use_cuda_graph && update_required)
// cudaStreamBeginCapture(...)`), then the same evaluation helper runs whether or not the stream
// is captured. A helper's sync is then only a note: the program may keep that op out of the
// captured runs (ggml turns graphs off for the ops whose helpers sync). A sync written in the
// capturing function itself, after the optional begin, breaks every captured run: a warning.
#include <cuda_runtime.h>

struct Node {
  int op;
  float* data;
  int n;
};

__global__ void apply(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.f;
}

static void gather_rows(cudaStream_t s, const Node& node) {
  apply<<<(node.n + 255) / 256, 256, 0, s>>>(node.data, node.n);
  cudaStreamSynchronize(s);  // expect: note syncwatch-capture-breaking-call
}

static void evaluate(cudaStream_t s, const Node* nodes, int count) {
  for (int i = 0; i < count; ++i) {
    if (nodes[i].op == 7)
      gather_rows(s, nodes[i]);
    else
      apply<<<(nodes[i].n + 255) / 256, 256, 0, s>>>(nodes[i].data, nodes[i].n);
  }
}

void compute(cudaStream_t s, const Node* nodes, int count, bool use_graph, cudaGraph_t* graph) {
  if (use_graph)
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  evaluate(s, nodes, count);
  if (use_graph)
    cudaStreamEndCapture(s, graph);
}

// Helpers called inside the condition that begins the capture: every run that reaches them is
// captured (two calls deep).
static void scatter_rows(cudaStream_t s, const Node& node) {
  apply<<<(node.n + 255) / 256, 256, 0, s>>>(node.data, node.n);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
}

static void evaluate_scatter(cudaStream_t s, const Node* nodes, int count) {
  for (int i = 0; i < count; ++i)
    scatter_rows(s, nodes[i]);
}

void compute_captured(cudaStream_t s, const Node* nodes, int count, bool use_graph, cudaGraph_t* graph) {
  if (use_graph) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    evaluate_scatter(s, nodes, count);
    cudaStreamEndCapture(s, graph);
  }
}

void compute_and_wait(cudaStream_t s, const Node* nodes, int count, bool use_graph, cudaGraph_t* graph) {
  if (use_graph)
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  for (int i = 0; i < count; ++i)
    apply<<<(nodes[i].n + 255) / 256, 256, 0, s>>>(nodes[i].data, nodes[i].n);
  cudaStreamSynchronize(s);  // expect: warning syncwatch-capture-breaking-call
  if (use_graph)
    cudaStreamEndCapture(s, graph);
}
