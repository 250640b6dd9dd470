// Application-level task runtime with its OWN functions named launch() and
// memcpyAsync() (host-side ring buffer, not CUDA); their 0 arguments are retry
// counts / flags, not streams. All real CUDA work uses a created stream -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t e = (call);                                                 \
    if (e != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct HostRing {
  char* base;
  size_t cap, head;
};

// Copies into a host staging ring; "async" because a background thread drains it.
static size_t memcpyAsync(HostRing& ring, const void* src, size_t n, int flags) {
  size_t off = ring.head;
  std::memcpy(ring.base + off, src, n);
  ring.head = (ring.head + n) % ring.cap;
  (void)flags;
  return off;
}

struct Task {
  const char* name;
  void (*fn)(void*);
  void* arg;
};

// Runs a task, retrying on failure; nothing to do with kernel launches.
static void launch(Task& t, int retries) {
  for (int attempt = 0; attempt <= retries; ++attempt) t.fn(t.arg);
}

__global__ void checksum(const unsigned char* p, int n, unsigned int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (unsigned int)p[i]);
}

static void upload_and_checksum(void* arg) {
  HostRing* ring = static_cast<HostRing*>(arg);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned char* d;
  unsigned int* d_sum;
  CUDA_CHECK(cudaMallocAsync(&d, ring->cap, s));
  CUDA_CHECK(cudaMallocAsync(&d_sum, sizeof(unsigned int), s));
  CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(unsigned int), s));
  CUDA_CHECK(cudaMemcpyAsync(d, ring->base, ring->cap, cudaMemcpyHostToDevice, s));
  checksum<<<int((ring->cap + 255) / 256), 256, 0, s>>>(d, int(ring->cap), d_sum);
  CUDA_CHECK(cudaFreeAsync(d, s));
  CUDA_CHECK(cudaFreeAsync(d_sum, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
}

int main() {
  static char storage[1 << 16];
  HostRing ring{storage, sizeof(storage), 0};
  const char msg[] = "payload";
  memcpyAsync(ring, msg, sizeof(msg), 0);
  Task t{"checksum", upload_and_checksum, &ring};
  launch(t, 0);
  printf("ring head at %zu\n", ring.head);
  return 0;
}
