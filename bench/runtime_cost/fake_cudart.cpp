// A stand-in for the CUDA runtime: four API entry points that do what cudart does around a
// call when a CUPTI subscriber is on - fill the call's parameter struct, call the
// subscriber at entry and at exit - and nothing else. Its name starts with libcudart, so
// syncwatch's frame classification treats its frames as CUDA's own, as in a real process.
#include <cupti.h>

#include <atomic>

namespace {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);
Handler Enter = nullptr, Exit = nullptr;
// Correlation ids unique per process without a counter all threads write (one shared atomic
// here would be a cache line the 8-thread mode's threads fight over, in the harness, not in
// syncwatch): each thread takes a block of ids at its first call.
std::atomic<std::uint32_t> CorrelationBlocks{0};
thread_local std::uint32_t Correlation = 0, CorrelationEnd = 0;
std::uint32_t nextCorrelation() {
  if (Correlation == CorrelationEnd) {
    Correlation = CorrelationBlocks.fetch_add(1, std::memory_order_relaxed) << 24;
    CorrelationEnd = Correlation + (1u << 24);
  }
  return ++Correlation;
}

// Keeps the compiler from folding the call's body away.
template <typename Params>
__attribute__((noinline)) int apiCall(CUpti_CallbackId Id, const char *Name, const Params &P) {
  CUpti_CallbackData D{};
  cudaError_t Result = cudaSuccess;  // CUPTI gives the exit callback the call's return value
  D.functionName = Name;
  D.functionReturnValue = &Result;
  D.functionParams = &P;
  D.correlationId = nextCorrelation();
  if (Enter) {
    D.callbackSite = CUPTI_API_ENTER;
    Enter(CUPTI_CB_DOMAIN_RUNTIME_API, Id, &D);
  }
  asm volatile("" ::: "memory");  // the "work" of the call
  if (Exit) {
    D.callbackSite = CUPTI_API_EXIT;
    Exit(CUPTI_CB_DOMAIN_RUNTIME_API, Id, &D);
  }
  return 0;
}
} // namespace

extern "C" {
__attribute__((visibility("default"))) void swcost_bind(Handler OnEnter, Handler OnExit) {
  Enter = OnEnter;
  Exit = OnExit;
}

__attribute__((visibility("default"))) int swcostLaunchKernel(const void *Func, cudaStream_t S) {
  cudaLaunchKernel_v7000_params P{};
  P.func = Func;
  P.stream = S;
  return apiCall(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", P);
}
__attribute__((visibility("default"))) int swcostMemcpyAsync(void *Dst, const void *Src, size_t N, cudaStream_t S) {
  cudaMemcpyAsync_v3020_params P{Dst, Src, N, cudaMemcpyHostToDevice, S};
  return apiCall(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", P);
}
__attribute__((visibility("default"))) int swcostEventRecord(cudaEvent_t E, cudaStream_t S) {
  cudaEventRecord_v3020_params P{E, S};
  return apiCall(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", P);
}
__attribute__((visibility("default"))) int swcostStreamSynchronize(cudaStream_t S) {
  cudaStreamSynchronize_v3020_params P{S};
  return apiCall(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", P);
}
}
