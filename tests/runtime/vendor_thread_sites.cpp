// Site keys of a thread whose stack is a vendor library's only (tests/runtime/vendor_thread_lib.cpp:
// 40 frames deep, no program frame, no Python, as a PyTorch autograd thread's launches): one
// key, learned once, then the fast path - not the slow path (a full unwind) at every call,
// which is what a key that must reach the user's frame would cost where there is none.
#include <cupti.h>

#include <cstdio>

extern "C" {
using Handler = void (*)(CUpti_CallbackDomain, CUpti_CallbackId, const CUpti_CallbackData *);
void swcost_start(Handler *, Handler *);
void swcost_summary(char *, int);
void swvendor_run_thread(Handler, Handler, int);
}

int main() {
  Handler Enter = nullptr, Exit = nullptr;
  swcost_start(&Enter, &Exit);
  swvendor_run_thread(Enter, Exit, 50);
  char Summary[512];
  swcost_summary(Summary, sizeof Summary);
  std::printf("%s\n", Summary);
  return 0;
}
