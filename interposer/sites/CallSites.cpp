#include "CallSites.h"

#include "ElfSymbols.h"
#include "FrameClass.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <map>
#include <string>
#include <vector>


namespace syncwatch::runtime {

std::uint64_t RawStack::hash() const {
  std::uint64_t H = 1469598103934665603ull;
  for (int I = 0; I < Depth; ++I) {
    H ^= reinterpret_cast<std::uintptr_t>(Frames[I]);
    H *= 1099511628211ull;
  }
  for (int I = 0; I < PythonDepth; ++I) {
    H ^= reinterpret_cast<std::uintptr_t>(Python[I].Code) ^ (static_cast<std::uint64_t>(Python[I].Line) << 40);
    H *= 1099511628211ull;
  }
  return H;
}

// Unwinding is the costliest part of recording a call (libgcc looks up each frame's unwind
// table). In a Python process the Python frames name the site, and the native frame that
// matters (a C++ extension's line) is near the top: a shallow native stack is enough.
constexpr int kNativeFramesUnderPython = 16;

void captureStack(RawStack &S) {
  S.PythonDepth = capturePythonFrames(S.Python);
  S.Depth = backtrace(S.Frames, S.PythonDepth ? kNativeFramesUnderPython : kMaxFrames);
}

std::uint32_t SiteTable::intern(const RawStack &S) {
  auto [It, New] = Ids.try_emplace(S.hash(), static_cast<std::uint32_t>(Stacks.size() + 1));
  if (New)
    Stacks.push_back(S);
  return It->second;
}

namespace {

std::string chomp(const char *Buf) {
  std::string S(Buf);
  while (!S.empty() && (S.back() == '\n' || S.back() == '\r'))
    S.pop_back();
  return S;
}

// binutils' addr2line reads .symtab and DWARF, which dladdr cannot (an executable's own
// functions are not in its dynamic symbol table). One run per module of a site's stack, once
// per distinct site, at report time. -i expands inlined calls (innermost first), so an
// inlined kernel wrapper and the user's function appear as frames of their own; -a marks
// where each address's group starts. The child must not load syncwatch itself.
std::vector<std::vector<Symbolized>> symbolize(const char *Module, const std::vector<std::uintptr_t> &Offsets) {
  std::vector<std::vector<Symbolized>> Out(Offsets.size());
  std::string Cmd = "env -u LD_PRELOAD -u CUDA_INJECTION64_PATH addr2line -a -i -f -C -e '" + std::string(Module) + "'";
  for (std::uintptr_t O : Offsets) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, " 0x%llx", static_cast<unsigned long long>(O));
    Cmd += Buf;
  }
  Cmd += " 2>/dev/null";
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return Out;
  char Buf[4096];
  int Group = -1;
  while (std::fgets(Buf, sizeof Buf, P)) {
    std::string Line = chomp(Buf);
    if (Line.compare(0, 2, "0x") == 0) {
      ++Group;
      continue;
    }
    if (Group < 0 || Group >= static_cast<int>(Out.size()) || !std::fgets(Buf, sizeof Buf, P))
      break;
    Symbolized S;
    S.Function = Line;
    std::string Loc = chomp(Buf);
    auto Disc = Loc.find(" (discriminator");
    if (Disc != std::string::npos)
      Loc.resize(Disc);
    auto Colon = Loc.rfind(':');
    if (Colon != std::string::npos && Loc.compare(0, 2, "??") != 0) {
      S.File = Loc.substr(0, Colon);
      S.Line = static_cast<unsigned>(std::atoi(Loc.c_str() + Colon + 1));
    }
    Out[Group].push_back(S);
  }
  pclose(P);
  return Out;
}

// SYNCWATCH_DEBUG_SITES=1: each site's raw native frames on stderr as it is resolved (module,
// offset, symbol), to see why a site resolved to the frame it did (docs/runtime.md).
void dumpStack(std::uint32_t Site, const RawStack &S) {
  std::fprintf(stderr, "syncwatch: site %u: %d native frames, %d Python frames\n", Site, S.Depth, S.PythonDepth);
  for (int I = 0; I < S.Depth; ++I) {
    std::uintptr_t Pc = reinterpret_cast<std::uintptr_t>(S.Frames[I]) - 1;
    LoadedModule M;
    if (!moduleAt(Pc, M)) {
      std::fprintf(stderr, "  #%-2d 0x%llx ?\n", I, static_cast<unsigned long long>(Pc));
      continue;
    }
    std::uintptr_t Off = elfIsFixedAddress(M.Path) ? Pc : Pc - reinterpret_cast<std::uintptr_t>(M.Base);
    ElfSymbol Sym;
    bool Named = elfSymbolAt(M.Path, Off, Sym);
    std::fprintf(stderr, "  #%-2d %s%s+0x%llx %s\n", I, isVendorModule(M.Path) ? "[vendor] " : "", M.Path,
                 static_cast<unsigned long long>(Off), Named ? Sym.Name.c_str() : "");
  }
}

} // namespace

bool pickUserFrame(const std::vector<std::vector<Symbolized>> &Groups, Symbolized &Out) {
  std::string Kernel;      // set after a device stub: skip that kernel's host wrapper
  bool AfterStub = false;  // set after nvcc's stub file: the next frame is the host wrapper
  for (const std::vector<Symbolized> &G : Groups) {
    for (const Symbolized &N : G) {
      if (N.Function.find("__device_stub__") != std::string::npos) {
        Kernel = kernelOfStub(N.Function);
        continue;
      }
      // The launch's own code, inlined from nvcc's generated <unit>.cudafe1.stub.c (addr2line
      // names the enclosing function for it: "main" at stub.c:21 on the H200). The frame that
      // called it is the kernel's host wrapper, at the kernel's declaration line.
      if (isKernelStubFile(N.File)) {
        AfterStub = true;
        continue;
      }
      // Static cudart and cuda_runtime.h's templates live in the user's binary; code
      // without line information is not the user's either.
      if (isVendorName(N.Function) || N.File.empty() || isVendorHeader(N.File))
        continue;
      if (AfterStub || (!Kernel.empty() && N.Function.substr(0, N.Function.find('(')) == Kernel)) {
        AfterStub = false;
        Kernel.clear();
        continue;
      }
      Out = N;
      return true;
    }
  }
  return false;
}

SiteFrame SiteTable::resolve(std::uint32_t Site) const {
  SiteFrame F;
  if (Site == 0 || Site > Stacks.size())
    return F;
  const RawStack &S = Stacks[Site - 1];
  for (int I = 0; I < S.PythonDepth; ++I) {
    PyCodeName N;
    if (pythonCodeName(S.Python[I].Code, N))
      F.Python.push_back({N.Function, N.File, static_cast<unsigned>(S.Python[I].Line)});
  }
  // Frames outside vendor modules, as module-relative call addresses (a return address
  // points after the call instruction: step back one byte to the call itself). A non-PIE
  // executable's symbols and line tables use run-time addresses.
  struct Candidate {
    const char *Module;
    std::uintptr_t Offset;
  };
  std::vector<Candidate> Frames;
  if (std::getenv("SYNCWATCH_DEBUG_SITES"))
    dumpStack(Site, S);
  for (int I = 1; I < S.Depth; ++I) {
    std::uintptr_t Pc = reinterpret_cast<std::uintptr_t>(S.Frames[I]) - 1;
    LoadedModule M;  // not dladdr: FrameClass.h says why
    if (!moduleAt(Pc, M) || isVendorModule(M.Path))
      continue;
    Frames.push_back({M.Path, elfIsFixedAddress(M.Path) ? Pc : Pc - reinterpret_cast<std::uintptr_t>(M.Base)});
  }
  std::map<std::string, std::vector<std::size_t>> ByModule;
  for (std::size_t I = 0; I < Frames.size(); ++I)
    ByModule[Frames[I].Module].push_back(I);
  std::vector<std::vector<Symbolized>> Groups(Frames.size());
  for (const auto &[Module, Indices] : ByModule) {
    std::vector<std::uintptr_t> Offsets;
    for (std::size_t I : Indices)
      Offsets.push_back(Frames[I].Offset);
    std::vector<std::vector<Symbolized>> R = symbolize(Module.c_str(), Offsets);
    for (std::size_t K = 0; K < Indices.size(); ++K)
      Groups[Indices[K]] = R[K];
  }
  Symbolized User;
  if (pickUserFrame(Groups, User)) {
    F.Function = User.Function;
    F.File = User.File;
    F.Line = User.Line;
    return F;
  }
  // No line tables (a release build: nvcc -O3 without -g or -lineinfo): the first frame
  // outside vendor code, as module, function and offset from the symbol table. Line 0
  // marks such a site.
  for (const Candidate &C : Frames) {
    ElfSymbol Sym;
    if (!elfSymbolAt(C.Module, C.Offset, Sym) || isVendorName(Sym.Name) ||
        Sym.Name.find("__device_stub__") != std::string::npos)
      continue;
    char Off[32];
    std::snprintf(Off, sizeof Off, "+0x%llx", static_cast<unsigned long long>(Sym.Offset));
    F.Function = Sym.Name + Off;
    F.File = C.Module;
    F.Line = 0;
    return F;
  }
  return F;
}

} // namespace syncwatch::runtime
