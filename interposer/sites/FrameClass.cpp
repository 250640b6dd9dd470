#include "FrameClass.h"

#include "syncwatch/finding.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace syncwatch::runtime {

// dladdr names the main program as it was started (argv[0], maybe relative to a working
// directory the program has left since): its real path is /proc/self/exe. The main program
// is told by its base address (that of its entry point), not by its name: a library
// dlopen'ed by a relative path has a relative name too.
const char *modulePath(const char *Name, const void *Base) {
  static const void *MainBase = [] {
    Dl_info I;
    auto Entry = reinterpret_cast<void *>(getauxval(AT_ENTRY));
    return Entry && dladdr(Entry, &I) ? I.dli_fbase : nullptr;
  }();
  static const char *Exe = [] {
    char Buf[4096];
    ssize_t N = ::readlink("/proc/self/exe", Buf, sizeof Buf - 1);
    return N > 0 ? strndup(Buf, static_cast<std::size_t>(N)) : nullptr;
  }();
  if (Base && Base == MainBase && Exe)
    return Exe;
  if (Name && Name[0] == '/')
    return Name;
  if (Name && std::strchr(Name, '/'))
    return Name;  // a library loaded by a relative path: its name is its own
  return Exe ? Exe : Name;
}

// glibc 2.35+, looked up at run time (dladdr is used where it is missing). Not a weak
// symbol: a reference to GLIBC_2.35, weak or not, makes auditwheel refuse the wheel's
// manylinux_2_34 tag (ci/package.sh).
#ifdef DLFO_STRUCT_HAS_EH_DBASE
using FindObject = int (*)(void *, dl_find_object *);
static FindObject findObject() {
  static const FindObject F = reinterpret_cast<FindObject>(dlsym(RTLD_DEFAULT, "_dl_find_object"));
  return F;
}
#endif

bool moduleAt(std::uintptr_t Address, LoadedModule &Out) {
  auto *P = reinterpret_cast<void *>(Address);
#ifdef DLFO_STRUCT_HAS_EH_DBASE
  if (FindObject Find = findObject()) {
    dl_find_object Found;
    if (Find(P, &Found) != 0)
      return false;
    // Modules stay few (hundreds in a PyTorch process); their entries are never removed: a
    // dlclose'd module's map start can only come back as a module whose dladdr agrees.
    struct Entry {
      void *MapStart;
      LoadedModule Module;
    };
    static std::mutex *Lock = new std::mutex;
    static auto *Known = new std::vector<Entry>;
    std::lock_guard<std::mutex> G(*Lock);
    for (const Entry &E : *Known)
      if (E.MapStart == Found.dlfo_map_start) {
        Out = E.Module;
        return Out.Path != nullptr;
      }
    Dl_info Info;
    LoadedModule M;
    if (dladdr(P, &Info) && Info.dli_fname)
      M = {modulePath(Info.dli_fname, Info.dli_fbase), Info.dli_fbase};
    Known->push_back({Found.dlfo_map_start, M});
    Out = M;
    return Out.Path != nullptr;
  }
#endif
  Dl_info Info;
  if (!dladdr(P, &Info) || !Info.dli_fname)
    return false;
  Out = {modulePath(Info.dli_fname, Info.dli_fbase), Info.dli_fbase};
  return true;
}

static bool baseNameStartsWith(const char *Path, std::initializer_list<const char *> Prefixes) {
  const char *Base = std::strrchr(Path, '/');
  Base = Base ? Base + 1 : Path;
  for (const char *Prefix : Prefixes)
    if (std::strncmp(Base, Prefix, std::strlen(Prefix)) == 0)
      return true;
  return false;
}

bool isCudaModule(const char *Path) {
  return !Path || baseNameStartsWith(Path, {"libsyncwatch", "libcupti", "libcudart", "libcuda."});
}

bool isVendorModule(const char *Path) {
  return !Path || isCudaModule(Path) ||
         baseNameStartsWith(Path, {"libc.so", "libc-", "libstdc++", "libgcc", "libpthread", "libtorch", "libc10",
                                   "libcublas", "libcudnn", "libnccl", "libpython", "ld-linux",
                                   // the interpreter itself (Debian's python3.x links libpython in):
                                   // its Python frames name the site, never its C frames
                                   "python3", "python2"});
}

// The local functions of NVIDIA's static libraries, as they are named inside a program that
// links them (nvcc's and CMake's default libcudart_static.a: libcudart_static_<40 hex digits>).
// They run between CUPTI's callback and the user's line; taken for the user's own, they made
// every call of an API from one function one site.
bool isStaticCudaLibraryName(const std::string &N) {
  if (N.compare(0, 3, "lib") != 0)
    return false;
  std::size_t Tag = N.find("_static_");
  if (Tag == std::string::npos || Tag < 4)
    return false;
  std::size_t Hex = Tag + 8, End = N.find_first_not_of("0123456789abcdef", Hex);
  if (End == std::string::npos)
    End = N.size();
  return End - Hex >= 16 && (End == N.size() || N[End] == '.');  // (a clone's .isra.0, .cold)
}

bool isVendorName(const std::string &N) {
  auto Starts = [&](const char *P) { return N.compare(0, std::strlen(P), P) == 0; };
  if (N.empty() || N == "??" || Starts("cuda") || Starts("__cuda") || Starts("cudart::") || Starts("pybind11::") ||
      Starts("__device_stub__") || (N.size() > 2 && N[0] == 'c' && N[1] == 'u' && N[2] >= 'A' && N[2] <= 'Z') ||
      isStaticCudaLibraryName(N))
    return true;
  // PyTorch's inline functions and templates emitted into an extension (a release build's
  // at::Tensor::item<int> is a symbol of the extension): the op that called them is the site.
  std::string Q = qualifiedFunctionName(N);
  auto QStarts = [&](const char *P) { return Q.compare(0, std::strlen(P), P) == 0; };
  return QStarts("at::") || QStarts("c10::") || QStarts("torch::") || QStarts("caffe2::");
}

bool isVendorHeader(const std::string &File) {
  auto Has = [&](const char *P) { return File.find(P) != std::string::npos; };
  // PyTorch's and pybind11's templates inlined into an extension (Tensor::item<T>, the
  // binding's dispatcher): the op that called them is the site.
  return Has("/targets/x86_64-linux/include/") || Has("/cuda/include/") || Has("/crt/") ||
         Has("/torch/include/") || Has("/include/pybind11/") || Has("/site-packages/torch/");
}

bool isKernelStubFile(const std::string &File) {
  static const std::string Suffix = ".cudafe1.stub.c";
  return File.size() > Suffix.size() && File.compare(File.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

std::string kernelOfStub(const std::string &Stub) {
  auto Pos = Stub.find("__device_stub__");
  if (Pos == std::string::npos)
    return "";
  std::string Mangled = "_" + Stub.substr(Pos + 15, Stub.find('(', Pos) - Pos - 15);
  int Status = 0;
  char *D = abi::__cxa_demangle(Mangled.c_str(), nullptr, nullptr, &Status);
  std::string Name = Status == 0 && D ? D : Mangled;
  std::free(D);
  return Name.substr(0, Name.find('('));
}

} // namespace syncwatch::runtime
