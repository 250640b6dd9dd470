// Call sites in a program that links the CUDA runtime statically (nvcc's default, and
// CMake's): the frames between CUPTI's callback and the user's line are the runtime's own
// functions inside the program, named libcudart_static_<hash> in its symbol table. On the
// H200 each API's calls from several lines of one function came out as one site (the line
// of the first call: cuSOLVER's getrf sample, five cudaMemcpyAsync lines reported as one),
// because such a frame was taken for the user's own and ended the site key.
//
// This program is that layout: a "static runtime" compiled into it (symbol names as
// libcudart_static.a's) calls syncwatch's real handlers (bench/runtime_cost's driver), and
// each API is called from three lines. It prints the site keys learned; three lines of two
// APIs must be six keys. The runtime's dispatch is 20 frames deep: the fix of the name alone
// still gave two keys on the H200, because a key stopped at 12 frames (SiteKeys' chain cap),
// short of the user's line.
#include <cupti.h>

#include <cstdio>
#include <cstring>

extern "C" {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);
void swcost_start(Handler *, Handler *);
void swcost_summary(char *, int);
}

namespace {
Handler Enter = nullptr, Exit = nullptr;

// The runtime's internal dispatch, as libcudart_static.a names its local functions, Levels
// frames deep (no tail call: the result is used after the call).
constexpr int kRuntimeDepth = 20;
__attribute__((noinline)) int dispatch(int Levels, CUpti_CallbackId Id, const char *Name, const void *Params)
    __asm__("libcudart_static_5b3e8f0a9c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f");
int dispatch(int Levels, CUpti_CallbackId Id, const char *Name, const void *Params) {
  if (Levels > 1) {
    int R = dispatch(Levels - 1, Id, Name, Params);
    asm volatile("" : "+r"(R)::"memory");
    return R;
  }
  CUpti_CallbackData D{};
  D.functionName = Name;
  D.functionParams = Params;
  D.callbackSite = CUPTI_API_ENTER;
  Enter(CUPTI_CB_DOMAIN_RUNTIME_API, Id, &D);
  asm volatile("" ::: "memory");
  D.callbackSite = CUPTI_API_EXIT;
  Exit(CUPTI_CB_DOMAIN_RUNTIME_API, Id, &D);
  return 0;
}

// The public entry points, local in the program as in an nvcc build.
__attribute__((noinline)) int memcpyAsync(void *Dst, const void *Src, size_t N, cudaStream_t S)
    __asm__("cudaMemcpyAsync");
int memcpyAsync(void *Dst, const void *Src, size_t N, cudaStream_t S) {
  cudaMemcpyAsync_v3020_params P{Dst, Src, N, cudaMemcpyHostToDevice, S};
  return dispatch(kRuntimeDepth, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", &P);
}
__attribute__((noinline)) int streamSynchronize(cudaStream_t S) __asm__("cudaStreamSynchronize");
int streamSynchronize(cudaStream_t S) {
  cudaStreamSynchronize_v3020_params P{S};
  return dispatch(kRuntimeDepth, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &P);
}

char Host[3][64], Device[3][64];
const auto Stream = reinterpret_cast<cudaStream_t>(0x1000);  // blocking (the fake driver's)

// A program's step: three copies and three synchronizes, each from its own line.
__attribute__((noinline)) void step() {
  memcpyAsync(Device[0], Host[0], 64, Stream);
  streamSynchronize(Stream);
  memcpyAsync(Device[1], Host[1], 64, Stream);
  streamSynchronize(Stream);
  memcpyAsync(Device[2], Host[2], 64, Stream);
  streamSynchronize(Stream);
}
} // namespace

int main() {
  swcost_start(&Enter, &Exit);
  for (int I = 0; I < 50; ++I)  // learned at first, then the fast path's keys
    step();
  char Summary[512];
  swcost_summary(Summary, sizeof Summary);
  std::printf("%s\n", Summary);
  return 0;
}
