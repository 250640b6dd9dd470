// The CUDA entry points that can block the host (host_wait_entry_points.def), defined by
// libsyncwatch.so so that, under LD_PRELOAD, a program's calls to them reach syncwatch
// first. They matter only when another tool (Nsight Systems, compute-sanitizer) holds CUPTI:
// syncwatch then times these calls itself, through the same handlers CUPTI's callbacks
// feed, and the report says what it could not see (issue 40). Otherwise each forwards at
// once, with nothing else done.
//
// Seen: calls through libcudart.so (PyTorch, `nvcc -cudart shared`) and direct calls of the
// driver API. Not seen: a program with the CUDA runtime linked in statically (nvcc's default
// libcudart_static.a), whose calls never leave it, nor the driver calls cudart makes through
// the pointers cuGetProcAddress gives it. Built into the preloaded library only.
#include "EntryPointTiming.h"
#include "../filter/CallFilter.h"
#include "../recorder/ApiHandler.h"

#include "syncwatch/catalogue.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace {

using namespace syncwatch::runtime;

// The definition these entry points stand in front of. The global scope first; then every
// loaded object by its own handle, since a library loaded with RTLD_LOCAL (PyTorch's
// libcudart, under a Python extension) is not in the scope RTLD_NEXT searches.
void *nextDefinition(const char *Name) {
  Dl_info Self;
  if (!::dladdr(reinterpret_cast<void *>(&nextDefinition), &Self))
    Self.dli_fbase = nullptr;
  auto NotOurs = [&](void *P) {
    Dl_info In;
    return P && (!::dladdr(P, &In) || In.dli_fbase != Self.dli_fbase);
  };
  if (void *P = ::dlsym(RTLD_NEXT, Name); NotOurs(P))
    return P;
  // (names first, dlopen after: not under dl_iterate_phdr's lock)
  std::vector<std::string> Loaded;
  ::dl_iterate_phdr(
      [](dl_phdr_info *Info, std::size_t, void *Out) {
        if (Info->dlpi_name && *Info->dlpi_name)
          static_cast<std::vector<std::string> *>(Out)->push_back(Info->dlpi_name);
        return 0;
      },
      &Loaded);
  for (const std::string &Path : Loaded) {
    void *Handle = ::dlopen(Path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!Handle)
      continue;
    void *P = ::dlsym(Handle, Name);
    ::dlclose(Handle);
    if (NotOurs(P))
      return P;
  }
  return nullptr;
}

struct EntryPoint {
  CallbackKey Key = 0;
  const char *Name = nullptr;
  CallbackInfo Info;
  bool Known = false;  // in the catalogue: timed; otherwise only forwarded
};

EntryPoint entryPoint(const char *Name, ApiDomain Domain, std::uint32_t Cbid) {
  EntryPoint E;
  E.Key = callbackKey(Domain, Cbid);
  E.Name = Name;
  if (const syncwatch::ApiInfo *Api = syncwatch::findApi(Name)) {
    E.Info = callbackInfoOf(*Api);
    E.Known = true;
  }
  return E;
}

// Correlation ids of syncwatch's own, per thread in blocks (no line all threads write),
// from 2^31 up: nothing else numbers these calls when CUPTI is not ours.
std::atomic<std::uint32_t> Blocks{0};
std::uint32_t nextCorrelation() {
  thread_local std::uint32_t Next = 0, End = 0;
  if (Next == End) {
    Next = (1u << 31) + (Blocks.fetch_add(1, std::memory_order_relaxed) << 16);
    End = Next + (1u << 16);
  }
  return ++Next;
}

std::uint32_t enter(const EntryPoint &E) {
  ApiCallback C;
  C.Key = E.Key;
  C.Correlation = nextCorrelation();
  C.FunctionName = E.Name;
  onApiEnter(C, E.Info);
  return C.Correlation;
}

void leave(const EntryPoint &E, std::uint32_t Correlation, int Result) {
  ApiReturn R;
  R.Key = E.Key;
  R.Result = Result;
  R.Correlation = Correlation;
  R.FunctionName = E.Name;
  onApiExit(R, E.Info);
}

constexpr int kRuntimeNotFound = 500;  // cudaErrorSymbolNotFound: no definition behind ours
constexpr int kDriverNotFound = 500;   // CUDA_ERROR_NOT_FOUND

} // namespace

#define SW_ENTRY(Name, Domain, Cbid, NotFound, Params, Args)                                          \
  extern "C" __attribute__((visibility("default"))) int Name Params {                                \
    using Fn = int(*) Params;                                                                         \
    static const Fn Real = reinterpret_cast<Fn>(nextDefinition(#Name));                               \
    if (!entryPointsTimed()) [[likely]]                                                               \
      return Real ? Real Args : NotFound;                                                             \
    static const EntryPoint E = entryPoint(#Name, Domain, Cbid);                                      \
    if (!E.Known)                                                                                     \
      return Real ? Real Args : NotFound;                                                             \
    std::uint32_t Correlation = enter(E);                                                             \
    int Result = Real ? Real Args : NotFound;                                                         \
    leave(E, Correlation, Result);                                                                    \
    return Result;                                                                                    \
  }
#define SW_RUNTIME(Name, Cbid, Params, Args) \
  SW_ENTRY(Name, ApiDomain::Runtime, CUPTI_RUNTIME_TRACE_CBID_##Cbid, kRuntimeNotFound, Params, Args)
#define SW_DRIVER(Name, Cbid, Params, Args) \
  SW_ENTRY(Name, ApiDomain::Driver, CUPTI_DRIVER_TRACE_CBID_##Cbid, kDriverNotFound, Params, Args)
#include "host_wait_entry_points.def"
