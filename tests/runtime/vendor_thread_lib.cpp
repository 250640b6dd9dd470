// A vendor library's own thread (built as libtorch_swvendor.so: syncwatch takes a module named
// libtorch* for a vendor's, as PyTorch's): it makes CUDA calls 40 frames deep inside the
// library, with no Python and no program frame on its stack, as PyTorch's autograd threads
// launch the backward pass. tests/runtime/vendor_thread_sites.cpp drives it.
#include <cupti.h>
#include <pthread.h>

namespace {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);
Handler Enter = nullptr, Exit = nullptr;
int Calls = 0;

__attribute__((noinline)) int deep(int Levels) {
  if (Levels > 1) {
    int R = deep(Levels - 1);
    asm volatile("" : "+r"(R)::"memory");  // (no tail call: each level is a frame)
    return R;
  }
  cudaStreamSynchronize_v3020_params P{reinterpret_cast<cudaStream_t>(0x1000)};
  CUpti_CallbackData D{};
  D.functionName = "cudaStreamSynchronize";
  D.functionParams = &P;
  D.callbackSite = CUPTI_API_ENTER;
  Enter(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &D);
  D.callbackSite = CUPTI_API_EXIT;
  Exit(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &D);
  return 0;
}

void *body(void *) {
  for (int I = 0; I < Calls; ++I)
    deep(40);
  return nullptr;
}
} // namespace

extern "C" __attribute__((visibility("default"))) void swvendor_run_thread(Handler E, Handler X, int N) {
  Enter = E;
  Exit = X;
  Calls = N;
  pthread_t T;
  pthread_create(&T, nullptr, body, nullptr);
  pthread_join(T, nullptr);
}
