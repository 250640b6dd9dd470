#include "TorchStreams.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>

namespace syncwatch::runtime {
namespace {

TorchStreamApi Api;
std::atomic<bool> Bound{false};

} // namespace

bool bindTorchStreams() {
  if (Bound.load(std::memory_order_acquire))
    return true;
  // Only an already loaded copy: the process is PyTorch's, and syncwatch loads nothing.
  void *H = dlopen("libc10_cuda.so", RTLD_NOW | RTLD_NOLOAD);
  if (!H)
    return false;
  TorchStreamApi A;
  A.GetCurrent = reinterpret_cast<decltype(A.GetCurrent)>(dlsym(H, "_ZN3c104cuda20getCurrentCUDAStreamEa"));
  if (!A.GetCurrent)
    A.GetCurrent16 = reinterpret_cast<decltype(A.GetCurrent16)>(dlsym(H, "_ZN3c104cuda20getCurrentCUDAStreamEs"));
  A.Handle = reinterpret_cast<decltype(A.Handle)>(dlsym(H, "_ZNK3c104cuda10CUDAStream6streamEv"));
  if (!A.bound())
    return false;  // (the handle stays open: libc10_cuda is PyTorch's, never unloaded)
  bindTorchStreamApi(A);
  return true;
}

void bindTorchStreamApi(const TorchStreamApi &A) {
  Api = A;
  Bound.store(A.bound(), std::memory_order_release);
}

bool torchStreamsBound() { return Bound.load(std::memory_order_acquire); }

bool launchOffTorchStream(bool PerThread, int Device, const void **Current) {
  if (!Bound.load(std::memory_order_acquire) || Device < 0 || Device > 127)
    return false;
  C10Stream S;
  try {
    S = Api.GetCurrent ? Api.GetCurrent(static_cast<std::int8_t>(Device)) : Api.GetCurrent16(static_cast<std::int16_t>(Device));
  } catch (...) {
    // c10 throws c10::Error for a device it does not know: read nothing from now on.
    Bound.store(false, std::memory_order_release);
    return false;
  }
  if (S.Id == 0)
    return false;  // the default stream: where such a launch goes anyway
  void *Handle = Api.Handle(&S);
  auto H = reinterpret_cast<std::uintptr_t>(Handle);
  if (PerThread ? H == 2 : H <= 1)  // an ExternalStream of cudaStreamPerThread / cudaStreamLegacy
    return false;
  *Current = Handle;
  return true;
}

} // namespace syncwatch::runtime
