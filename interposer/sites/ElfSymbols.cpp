#include "ElfSymbols.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#ifdef SYNCWATCH_HAVE_LIBELF
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#endif

namespace syncwatch::runtime {
namespace {

struct FunctionSymbol {
  std::uint64_t Start = 0, Size = 0;
  std::string Mangled;
};

struct Module {
  bool Fixed = false;                 // ET_EXEC
  std::vector<FunctionSymbol> Functions;  // sorted by start
};

std::string demangled(const std::string &Mangled) {
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> D(abi::__cxa_demangle(Mangled.c_str(), nullptr, nullptr, &Status), std::free);
  std::string S = Status == 0 && D ? D.get() : Mangled;
  auto Paren = S.find('(');
  return Paren == std::string::npos || Paren == 0 ? S : S.substr(0, Paren);
}

#ifdef SYNCWATCH_HAVE_LIBELF
// libelf is opened when a report needs it, not linked: the library must load on GPU nodes
// that lack libelf.so.1 (only the report's release-build sites need it), and Debian's
// libelf.a is not position-independent.
struct LibElf {
  decltype(&::elf_version) Version = nullptr;
  decltype(&::elf_begin) Begin = nullptr;
  decltype(&::elf_end) End = nullptr;
  decltype(&::elf_nextscn) NextScn = nullptr;
  decltype(&::elf_getdata) GetData = nullptr;
  decltype(&::elf_strptr) StrPtr = nullptr;
  decltype(&::gelf_getehdr) GetEhdr = nullptr;
  decltype(&::gelf_getshdr) GetShdr = nullptr;
  decltype(&::gelf_getsym) GetSym = nullptr;
  bool Ok = false;
};

const LibElf &libElf() {
  static const LibElf *L = [] {
    auto *E = new LibElf;
    // SYNCWATCH_LIBELF=0: as on a GPU node without libelf.so.1 (the H200 image has none).
    const char *Use = std::getenv("SYNCWATCH_LIBELF");
    void *H = Use && std::strcmp(Use, "0") == 0 ? nullptr : dlopen("libelf.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return E;
#define SW_ELF(Field, Name) E->Field = reinterpret_cast<decltype(E->Field)>(dlsym(H, Name))
    SW_ELF(Version, "elf_version");
    SW_ELF(Begin, "elf_begin");
    SW_ELF(End, "elf_end");
    SW_ELF(NextScn, "elf_nextscn");
    SW_ELF(GetData, "elf_getdata");
    SW_ELF(StrPtr, "elf_strptr");
    SW_ELF(GetEhdr, "gelf_getehdr");
    SW_ELF(GetShdr, "gelf_getshdr");
    SW_ELF(GetSym, "gelf_getsym");
#undef SW_ELF
    E->Ok = E->Version && E->Begin && E->End && E->NextScn && E->GetData && E->StrPtr && E->GetEhdr && E->GetShdr &&
            E->GetSym && E->Version(EV_CURRENT) != EV_NONE;
    return E;
  }();
  return *L;
}

// .symtab when the module has one (executables are rarely stripped of it), else .dynsym.
Module readModule(const char *Path) {
  Module M;
  const LibElf &L = libElf();
  if (!L.Ok)
    return M;
  int Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return M;
  Elf *E = L.Begin(Fd, ELF_C_READ, nullptr);
  GElf_Ehdr Header;
  if (E && L.GetEhdr(E, &Header)) {
    M.Fixed = Header.e_type == ET_EXEC;
    for (GElf_Word Wanted : {GElf_Word(SHT_SYMTAB), GElf_Word(SHT_DYNSYM)}) {
      for (Elf_Scn *Scn = L.NextScn(E, nullptr); Scn; Scn = L.NextScn(E, Scn)) {
        GElf_Shdr Sh;
        if (!L.GetShdr(Scn, &Sh) || Sh.sh_type != Wanted || !Sh.sh_entsize)
          continue;
        Elf_Data *Data = L.GetData(Scn, nullptr);
        for (std::size_t I = 0; Data && I < Sh.sh_size / Sh.sh_entsize; ++I) {
          GElf_Sym Sym;
          if (!L.GetSym(Data, static_cast<int>(I), &Sym) || GELF_ST_TYPE(Sym.st_info) != STT_FUNC ||
              Sym.st_shndx == SHN_UNDEF || !Sym.st_value)
            continue;
          const char *Name = L.StrPtr(E, Sh.sh_link, Sym.st_name);
          if (Name && *Name)
            M.Functions.push_back({Sym.st_value, Sym.st_size, Name});
        }
      }
      if (!M.Functions.empty())
        break;
    }
  }
  if (E)
    L.End(E);
  ::close(Fd);
  std::sort(M.Functions.begin(), M.Functions.end(),
            [](const FunctionSymbol &A, const FunctionSymbol &B) { return A.Start < B.Start; });
  return M;
}
#else
Module readModule(const char *) { return {}; }
#endif

const Module &moduleOf(const char *Path) {
  static auto *Lock = new std::mutex;
  static auto *Modules = new std::map<std::string, Module>;
  std::lock_guard<std::mutex> L(*Lock);
  auto It = Modules->find(Path);
  if (It == Modules->end())
    It = Modules->emplace(Path, readModule(Path)).first;
  return It->second;
}

} // namespace

bool elfIsFixedAddress(const char *ModulePath) { return moduleOf(ModulePath).Fixed; }

bool elfSymbolAt(const char *ModulePath, std::uint64_t Address, ElfSymbol &Out) {
  const Module &M = moduleOf(ModulePath);
  auto It = std::upper_bound(M.Functions.begin(), M.Functions.end(), Address,
                             [](std::uint64_t A, const FunctionSymbol &F) { return A < F.Start; });
  if (It == M.Functions.begin())
    return false;
  const FunctionSymbol &F = *std::prev(It);
  // Symbols without a size (hand-written assembly) cover up to the next one.
  if (F.Size && Address >= F.Start + F.Size)
    return false;
  Out.Name = demangled(F.Mangled);
  Out.Offset = Address - F.Start;
  return true;
}

} // namespace syncwatch::runtime
