// Packet assembler in a stream-using file: host-side std::memcpy / std::memset, a user
// struct method named memcpy_to(), cudaMemcpyPeerAsync and a cudaMemcpyKind variable look
// like synchronous CUDA copies but are not -> no findings.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

struct PacketHeader {
  unsigned id, length;
  void memcpy_to(unsigned char* dst) const { std::memcpy(dst, this, sizeof(*this)); }
};

__global__ void checksum_packets(const unsigned char* buf, int packets, int stride, unsigned* sums) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= packets) return;
  unsigned s = 0;
  for (int i = 0; i < stride; ++i) s = s * 31u + buf[size_t(p) * stride + i];
  sums[p] = s;
}

// h_staging: cudaMallocHost'ed by the caller, packets * stride bytes.
void assemble(unsigned char* h_staging, unsigned char* d_buf, unsigned* d_sums, unsigned* d_mirror_peer,
              int peer_device, int packets, int stride, cudaStream_t stream) {
  const cudaMemcpyKind kind = cudaMemcpyHostToDevice;
  std::memset(h_staging, 0, size_t(packets) * stride);
  for (int p = 0; p < packets; ++p) {
    PacketHeader hdr{unsigned(p), unsigned(stride)};
    hdr.memcpy_to(h_staging + size_t(p) * stride);
    std::memcpy(h_staging + size_t(p) * stride + sizeof(hdr), "payload", 8);
  }
  CUDA_CHECK(cudaMemcpyAsync(d_buf, h_staging, size_t(packets) * stride, kind, stream));
  checksum_packets<<<(packets + 127) / 128, 128, 0, stream>>>(d_buf, packets, stride, d_sums);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyPeerAsync(d_mirror_peer, peer_device, d_sums, 0, packets * sizeof(unsigned), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}
