#include "CallSites.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#if SYNCWATCH_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

namespace syncwatch::runtime {

std::uint64_t RawStack::hash() const {
  std::uint64_t H = 1469598103934665603ull;
  for (int I = 0; I < Depth; ++I) {
    H ^= reinterpret_cast<std::uintptr_t>(Frames[I]);
    H *= 1099511628211ull;
  }
  return H;
}

void captureStack(RawStack &S) { S.Depth = backtrace(S.Frames, kMaxFrames); }

std::uint32_t SiteTable::intern(const RawStack &S) {
  auto [It, New] = Ids.try_emplace(S.hash(), static_cast<std::uint32_t>(Stacks.size() + 1));
  if (New)
    Stacks.push_back(S);
  return It->second;
}

namespace {

// Modules whose frames are never the user's call site.
bool isVendorModule(const char *Path) {
  if (!Path)
    return true;
  const char *Base = std::strrchr(Path, '/');
  Base = Base ? Base + 1 : Path;
  for (const char *Prefix : {"libsyncwatch", "libcupti", "libcudart", "libcuda.", "libc.so", "libc-",
                             "libstdc++", "libgcc", "libpthread", "libtorch", "libc10", "libcublas",
                             "libcudnn", "libnccl", "libpython", "ld-linux"})
    if (std::strncmp(Base, Prefix, std::strlen(Prefix)) == 0)
      return true;
  return false;
}

std::string demangle(const char *Name) {
  if (!Name)
    return "";
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> D(abi::__cxa_demangle(Name, nullptr, nullptr, &Status), std::free);
  return Status == 0 && D ? D.get() : Name;
}

// Static cudart lives inside the executable, and cuda_runtime.h's templates
// (cudaLaunchKernel<T>) are compiled into the user's objects: their frames are vendor
// frames too. Demangled names are compared, so namespaces and templates do not hide them.
bool isVendorSymbol(const char *Mangled) {
  if (!Mangled)
    return false;
  std::string N = demangle(Mangled);
  auto Starts = [&](const char *P) { return N.compare(0, std::strlen(P), P) == 0; };
  return Starts("cuda") || Starts("__cuda") || Starts("cudart::") || Starts("__device_stub__") ||
         (N.size() > 2 && N[0] == 'c' && N[1] == 'u' && N[2] >= 'A' && N[2] <= 'Z');
}

// nvcc's launch path: kernel(args) [host wrapper] -> __device_stub__kernel -> cudaLaunchKernel.
bool isDeviceStub(const char *Mangled) {
  return Mangled && std::strstr(Mangled, "__device_stub__") != nullptr;
}

#if SYNCWATCH_HAVE_LIBDW
bool lineOf(void *Addr, std::string &File, unsigned &Line) {
  static Dwfl_Callbacks Callbacks = {dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr, nullptr};
  static Dwfl *D = [] {
    Dwfl *X = dwfl_begin(&Callbacks);
    if (X && (dwfl_linux_proc_report(X, getpid()) != 0 || dwfl_report_end(X, nullptr, nullptr) != 0)) {
      dwfl_end(X);
      return static_cast<Dwfl *>(nullptr);
    }
    return X;
  }();
  if (!D)
    return false;
  Dwarf_Addr A = reinterpret_cast<Dwarf_Addr>(Addr);
  Dwfl_Module *M = dwfl_addrmodule(D, A);
  Dwfl_Line *L = M ? dwfl_module_getsrc(M, A) : nullptr;
  int LineNo = 0;
  const char *Src = L ? dwfl_lineinfo(L, nullptr, &LineNo, nullptr, nullptr, nullptr) : nullptr;
  if (!Src)
    return false;
  File = Src;
  Line = static_cast<unsigned>(LineNo);
  return true;
}
#else
// Without libdw (a GPU node often lacks it): binutils' addr2line, once per distinct site.
bool lineOf(void *Addr, std::string &File, unsigned &Line) {
  Dl_info Info;
  if (!dladdr(Addr, &Info) || !Info.dli_fname)
    return false;
  std::uintptr_t Offset = reinterpret_cast<std::uintptr_t>(Addr) - reinterpret_cast<std::uintptr_t>(Info.dli_fbase);
  char Cmd[1024];
  std::snprintf(Cmd, sizeof Cmd, "addr2line -e '%s' 0x%llx 2>/dev/null", Info.dli_fname,
                static_cast<unsigned long long>(Offset));
  FILE *P = popen(Cmd, "r");
  if (!P)
    return false;
  char Buf[1024] = {0};
  bool Ok = std::fgets(Buf, sizeof Buf, P) != nullptr;
  pclose(P);
  if (!Ok)
    return false;
  std::string S(Buf);
  while (!S.empty() && (S.back() == '\n' || S.back() == '\r'))
    S.pop_back();
  auto Colon = S.rfind(':');
  if (Colon == std::string::npos || S.compare(0, 2, "??") == 0)
    return false;
  File = S.substr(0, Colon);
  Line = static_cast<unsigned>(std::atoi(S.c_str() + Colon + 1));
  return Line > 0;
}
#endif

} // namespace

SiteFrame SiteTable::resolve(std::uint32_t Site) const {
  SiteFrame F;
  if (Site == 0 || Site > Stacks.size())
    return F;
  const RawStack &S = Stacks[Site - 1];
  bool SkipKernelWrapper = false;
  for (int I = 1; I < S.Depth; ++I) {
    Dl_info Info;
    if (!dladdr(S.Frames[I], &Info))
      continue;
    if (isDeviceStub(Info.dli_sname)) {
      SkipKernelWrapper = true; // the next frame is the kernel's host-side wrapper
      continue;
    }
    if (isVendorModule(Info.dli_fname) || isVendorSymbol(Info.dli_sname))
      continue;
    if (SkipKernelWrapper) {
      SkipKernelWrapper = false;
      continue;
    }
    // A return address points after the call instruction: look up the call itself.
    void *Call = static_cast<char *>(S.Frames[I]) - 1;
    F.Function = demangle(Info.dli_sname);
    if (F.Function.empty())
      F.Function = Info.dli_fname ? Info.dli_fname : "";
    lineOf(Call, F.File, F.Line);
    if (F.File.empty())
      F.File = Info.dli_fname ? Info.dli_fname : "";
    return F;
  }
  return F;
}

} // namespace syncwatch::runtime
