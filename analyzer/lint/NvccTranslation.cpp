// One compile command into a clang driver command line (NvccTranslation.h): which compiler
// wrote it, its response files, nvcc's arguments read option by option (the options and
// their handlers: nvcc_options.def, NvccOptionHandlers.cpp), the head of clang's command
// that nvcc implies (CUDA mode, the install, the GPU architectures, nvcc's macros), g++'s
// arguments, and dropping what clang's driver does not know.
#include "NvccTranslation.h"

#include "CudaInstall.h"
#include "NvccOptionHandlers.h"

#include "clang/Basic/OffloadArch.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/StringSaver.h"

#include <cstring>
#include <optional>
#include <set>

using namespace llvm;

namespace syncwatch {
namespace {

using nvcc::addHostFlag;
using nvcc::ExpandedOption;
using nvcc::includeDir;
using nvcc::NvccCommand;
using nvcc::readNvccOption;
using nvcc::splitList;
using nvcc::translateNvccOption;

// nvcc-only spellings that mark a command as nvcc's even when its driver has another
// name (a wrapper script around nvcc).
bool isNvccOnlyFlag(StringRef A) {
  static const char *const Prefixes[] = {
      "-arch=", "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-Xcompiler",
      "--compiler-options", "-ccbin", "--compiler-bindir", "--default-stream",
      "-default-stream", "-rdc", "--relocatable-device-code", "--extended-lambda",
      "--expt-extended-lambda", "--expt-relaxed-constexpr", "-forward-unknown-to-host-compiler",
      "--use_fast_math", "-use_fast_math", "-Xptxas", "-Xcudafe", "--options-file"};
  for (const char *P : Prefixes)
    if (A == P || (A.starts_with(P) && A.size() > strlen(P) && A[strlen(P)] == '='))
      return true;
  return false;
}

StringRef driverName(StringRef Path) {
  StringRef Name = sys::path::filename(Path);
  if (Name.ends_with_insensitive(".exe"))
    Name = Name.drop_back(4);
  return Name;
}

bool isLauncher(StringRef Arg) {
  StringRef N = driverName(Arg);
  return N == "ccache" || N == "sccache" || N == "distcc" || N == "icecc" || N == "buildcache";
}

bool isSourceExtension(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  return Ext == ".cu" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c" ||
         Ext == ".C" || Ext == ".c++" || Ext == ".cp" || Ext == ".CPP";
}

bool sameFile(StringRef A, StringRef B, StringRef Directory) {
  SmallString<256> PA(A), PB(B);
  if (sys::path::is_relative(PA))
    sys::path::make_absolute(Directory, PA);
  if (sys::path::is_relative(PB))
    sys::path::make_absolute(Directory, PB);
  sys::path::remove_dots(PA, true);
  sys::path::remove_dots(PB, true);
  if (PA == PB)
    return true;
  sys::fs::UniqueID IA, IB;
  return !sys::fs::getUniqueID(PA, IA) && !sys::fs::getUniqueID(PB, IB) && IA == IB;
}

// compute_90 / sm_90a / lto_90 / sm_100f -> the clang architecture (sm_90, sm_90a, sm_100),
// or "" when clang 22 does not know it.
std::string clangArch(StringRef Nvcc) {
  Nvcc = Nvcc.trim().trim("\"'[]");
  Regex Re("^(sm|compute|lto)_([0-9]+)([af]?)$");
  SmallVector<StringRef, 4> M;
  if (!Re.match(Nvcc, &M))
    return "";
  std::string Arch = "sm_" + M[2].str() + (M[3] == "a" ? "a" : "");
  if (clang::StringToOffloadArch(Arch) == clang::OffloadArch::UNKNOWN) {
    // sm_90a may be newer than clang: its base architecture parses the same host code.
    Arch = "sm_" + M[2].str();
    if (clang::StringToOffloadArch(Arch) == clang::OffloadArch::UNKNOWN)
      return "";
  }
  return Arch;
}

// Keeps the arguments clang's driver knows; drops the rest (g++-only flags such as
// -fno-fat-lto-objects' cousins clang marks unknown or unsupported). Args[0] is the driver.
void dropUnknownToClang(std::vector<std::string> &Args, std::vector<std::string> &Dropped) {
  if (Args.size() < 2)
    return;
  const opt::OptTable &Table = clang::getDriverOptTable();
  std::vector<const char *> Argv;
  for (std::size_t I = 1; I < Args.size(); ++I)
    Argv.push_back(Args[I].c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  opt::InputArgList List = Table.ParseArgs(Argv, MissingIndex, MissingCount,
                                           opt::Visibility(clang::options::ClangOption));
  std::vector<bool> Drop(Argv.size(), false);
  std::vector<unsigned> Starts;
  for (const opt::Arg *A : List)
    Starts.push_back(A->getIndex());
  llvm::sort(Starts);
  for (const opt::Arg *A : List) {
    const opt::Option &O = A->getOption();
    if (O.getKind() != opt::Option::UnknownClass && !O.hasFlag(clang::options::Unsupported))
      continue;
    unsigned Begin = A->getIndex();
    auto Next = llvm::upper_bound(Starts, Begin);
    unsigned End = Next == Starts.end() ? static_cast<unsigned>(Argv.size()) : *Next;
    for (unsigned I = Begin; I < End; ++I)
      Drop[I] = true;
  }
  std::vector<std::string> Kept{Args[0]};
  for (std::size_t I = 0; I < Argv.size(); ++I) {
    if (Drop[I])
      Dropped.push_back(Args[I + 1]);
    else
      Kept.push_back(Args[I + 1]);
  }
  Args = std::move(Kept);
}

// @file and nvcc's "--options-file a,b" / "-optf a", relative to Directory.
bool expandResponseFiles(std::vector<std::string> &Args, StringRef Directory, std::string &Why) {
  std::vector<std::string> WithAt;
  for (std::size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    std::optional<std::string> Value;
    for (StringRef Name : {"--options-file", "-optf"}) {
      if (A == Name && I + 1 < Args.size()) {
        Value = Args[++I];
        break;
      }
      if (A.starts_with(Name) && A.size() > Name.size() && A[Name.size()] == '=') {
        Value = A.substr(Name.size() + 1).str();
        break;
      }
    }
    if (!Value) {
      WithAt.push_back(Args[I]);
      continue;
    }
    for (const std::string &F : splitList(*Value))
      WithAt.push_back("@" + F);
  }
  if (llvm::none_of(WithAt, [](const std::string &A) { return StringRef(A).starts_with("@"); })) {
    Args = std::move(WithAt);
    return true;
  }
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  SmallVector<const char *, 64> Argv;
  for (const std::string &A : WithAt)
    Argv.push_back(Saver.save(A).data());
  cl::ExpansionContext Ctx(Alloc, cl::TokenizeGNUCommandLine);
  Ctx.setCurrentDir(Directory).setRelativeNames(true);
  if (llvm::Error E = Ctx.expandResponseFiles(Argv)) {
    Why = "cannot read the response file of its compile command: " + toString(std::move(E));
    return false;
  }
  Args.assign(Argv.begin(), Argv.end());
  // GNU semantics leave an @file that does not exist as a literal argument; for a build's
  // compile command that is a missing file, not an argument.
  for (const std::string &A : Args)
    if (StringRef(A).starts_with("@")) {
      Why = "cannot read the response file '" + A.substr(1) + "' of its compile command (in '" +
            Directory.str() + "')";
      return false;
    }
  return true;
}

void addOpenMPHeader(const TranslationConfig &Config, StringRef HostCompiler,
                     std::vector<std::string> &Out) {
  SmallString<256> Own(Config.ResourceDir);
  sys::path::append(Own, "include", "omp.h");
  if (!Config.ResourceDir.empty() && sys::fs::exists(Own))
    return;
  std::string Gcc = findGccOmpHeader(HostCompiler);
  if (Gcc.empty() || Config.CompatDir.empty())
    return;
  // A forwarding omp.h, searched last: adding GCC's whole internal include directory
  // would put its limits.h/stddef.h into clang's #include_next chains.
  SmallString<256> Dir(Config.CompatDir);
  sys::path::append(Dir, "openmp");
  Out.push_back("-idirafter");
  Out.push_back(std::string(Dir));
  Out.push_back("-DSYNCWATCH_GCC_OMP_H=\"" + Gcc + "\"");
}

// nvcc's arguments, in order: the sources (a link input goes to T.Dropped), nvcc's own
// options (translateNvccOption), and the rest, which nvcc hands to the host compiler.
NvccCommand readNvccArgs(const std::vector<std::string> &Args, StringRef Directory, StringRef File,
                         TranslatedCommand &T) {
  NvccCommand N;
  for (std::size_t I = 1; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A.empty())
      continue;
    if (A[0] != '-' || A == "-") {
      if (isSourceExtension(A) || sameFile(A, File, Directory))
        N.Inputs.push_back(A);
      else
        T.Dropped.push_back(A);  // object files, libraries: link inputs
      continue;
    }
    ExpandedOption E = readNvccOption(Args, I);
    if (!E.Opt) {
      // -forward-unknown-to-host-compiler (CMake always passes it) hands nvcc's unknown
      // options to the host compiler: -fPIC, -Wall, -fopenmp, -pthread.
      if (StringRef(A).starts_with("--")) {
        T.Dropped.push_back(A);
        continue;
      }
      addHostFlag(A, N.Flags, T.Dropped, N.OpenMP);
      continue;
    }
    translateNvccOption(E, Directory, T.CudaPath, N, T.Dropped);
  }
  return N;
}

// A CUDA unit's head of the command: CUDA mode, the install, the GPU architectures, the
// default stream, rdc, and the macros nvcc defines (its version, the compat header's).
void addCudaArgs(NvccCommand &N, const TranslationConfig &Config, TranslatedCommand &T) {
  T.Args.push_back("-x");
  T.Args.push_back("cuda");
  if (!T.CudaPath.empty())
    T.Args.push_back("--cuda-path=" + T.CudaPath);
  std::set<std::string> Seen;
  for (const std::string &A : N.Arches) {
    std::string Arch = clangArch(A);
    if (!Arch.empty() && Seen.insert(Arch).second)
      T.Args.push_back("--cuda-gpu-arch=" + Arch);
  }
  // -arch=native/all/all-major, or only architectures clang does not know: the default.
  if (Seen.empty())
    T.Args.push_back("--cuda-gpu-arch=" + Config.DefaultGpuArch);
  if (!N.DefaultStream.empty())
    T.Args.push_back("-fgpu-default-stream=" + N.DefaultStream);
  if (N.Rdc) {
    T.Args.push_back("-fgpu-rdc");
    N.Defines.push_back("__CUDACC_RDC__");
  }
  // The macros nvcc defines for the host compiler (nvcc --dryrun shows them).
  CudaVersion V = cudaVersionOf(T.CudaPath);
  if (V.known()) {
    T.Args.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(V.Major));
    T.Args.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(V.Minor));
    T.Args.push_back("-D__CUDACC_VER_BUILD__=" + std::to_string(V.Build));
  }
  for (const std::string &D : N.Defines)
    T.Args.push_back("-D" + D);
  if (!Config.CompatDir.empty()) {
    SmallString<256> Compat(Config.CompatDir);
    sys::path::append(Compat, "syncwatch_nvcc_compat.h");
    T.Args.push_back("-include");
    T.Args.push_back(std::string(Compat));
  }
}

// A host unit's head of the command (a .cpp or .c file nvcc compiles, or -x c++/c).
void addHostArgs(const NvccCommand &N, TranslatedCommand &T) {
  if (!N.Language.empty()) {
    T.Args.push_back("-x");
    T.Args.push_back(N.Language);
  }
  // nvcc puts CUDA's headers on every compile's include path, .cpp files' too.
  if (!T.CudaPath.empty()) {
    SmallString<256> Inc(T.CudaPath);
    sys::path::append(Inc, "include");
    T.Args.push_back("-isystem");
    T.Args.push_back(std::string(Inc));
  }
}

TranslatedCommand translateNvcc(const std::vector<std::string> &Args, StringRef Directory,
                                StringRef File, const TranslationConfig &Config,
                                StringRef Driver) {
  TranslatedCommand T;
  T.Kind = CompilerKind::Nvcc;
  T.CudaPath = cudaPathOfNvcc(Driver);
  if (T.CudaPath.empty())
    T.CudaPath = Config.FallbackCudaPath;
  NvccCommand N = readNvccArgs(Args, Directory, File, T);

  // nvcc compiles .cu files, and anything under -x cu, as CUDA; .cpp/.c files as host code.
  StringRef Source = N.Inputs.empty() ? File : StringRef(N.Inputs.front());
  if (N.Language == "cu" || N.Language == "cuda")
    T.Cuda = true;
  else if (N.Language.empty())
    T.Cuda = sys::path::extension(Source) == ".cu";
  bool C = N.Language == "c" || (N.Language.empty() && sys::path::extension(Source) == ".c");

  T.Args.push_back(C ? "clang" : "clang++");
  if (T.Cuda)
    addCudaArgs(N, Config, T);
  else
    addHostArgs(N, T);
  T.Args.insert(T.Args.end(), N.Flags.begin(), N.Flags.end());
  if (N.OpenMP)
    addOpenMPHeader(Config, N.HostCompiler, T.Args);
  for (const std::string &In : N.Inputs)
    T.Args.push_back(In);
  if (N.Inputs.empty())
    T.Args.push_back(File.str());
  dropUnknownToClang(T.Args, T.Dropped);
  return T;
}

TranslatedCommand translateGcc(const std::vector<std::string> &Args, StringRef Directory,
                               StringRef File, const TranslationConfig &Config) {
  TranslatedCommand T;
  T.Kind = CompilerKind::Gcc;
  StringRef Ext = sys::path::extension(File);
  T.Args.push_back(Ext == ".c" ? "clang" : "clang++");
  bool OpenMP = false;
  std::string Cuda = Config.FallbackCudaPath;
  for (std::size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "-I" && I + 1 < Args.size()) {
      includeDir(Args[++I], false, Cuda, Directory, T.Args);
      continue;
    }
    if (A.starts_with("-I") && A.size() > 2) {
      includeDir(A.drop_front(2).str(), false, Cuda, Directory, T.Args);
      continue;
    }
    addHostFlag(Args[I], T.Args, T.Dropped, OpenMP);
  }
  T.Cuda = llvm::any_of(T.Args, [](StringRef A) { return A == "cuda" || A == "cu"; });
  if (OpenMP) {
    // Before the input file, which the compile command names last.
    std::vector<std::string> Omp;
    addOpenMPHeader(Config, Args[0], Omp);
    auto It = llvm::find_if(T.Args, [&](const std::string &A) { return sameFile(A, File, Directory); });
    T.Args.insert(It, Omp.begin(), Omp.end());
  }
  dropUnknownToClang(T.Args, T.Dropped);
  return T;
}

} // namespace

CompilerKind detectCompiler(ArrayRef<std::string> Args, StringRef File) {
  std::size_t First = 0;
  while (First + 1 < Args.size() && isLauncher(Args[First]))
    ++First;
  if (First >= Args.size())
    return CompilerKind::Unknown;
  StringRef Name = driverName(Args[First]);
  if (Name == "nvcc" || Name.starts_with("nvcc-"))
    return CompilerKind::Nvcc;
  if (Name.contains("clang"))
    return CompilerKind::Clang;
  if (sys::path::extension(File) == ".cu" &&
      llvm::any_of(Args.drop_front(First + 1), [](StringRef A) { return isNvccOnlyFlag(A); }))
    return CompilerKind::Nvcc;
  Regex Gnu("^([a-z0-9_]+-)*(g\\+\\+|gcc|c\\+\\+|cc)(-[0-9.]+)?$");
  if (Gnu.match(Name))
    return CompilerKind::Gcc;
  return CompilerKind::Unknown;
}

TranslatedCommand translateCommand(ArrayRef<std::string> Args, StringRef Directory,
                                   StringRef File, const TranslationConfig &Config) {
  std::vector<std::string> Expanded(Args.begin(), Args.end());
  while (Expanded.size() > 1 && isLauncher(Expanded.front()))
    Expanded.erase(Expanded.begin());
  TranslatedCommand T;
  if (Expanded.empty())
    return T;
  std::string Error;
  if (!expandResponseFiles(Expanded, Directory, Error)) {
    T.Args.assign(Args.begin(), Args.end());
    T.Error = Error;
    return T;
  }
  switch (detectCompiler(Expanded, File)) {
  case CompilerKind::Nvcc:
    return translateNvcc(Expanded, Directory, File, Config, Expanded[0]);
  case CompilerKind::Gcc:
    return translateGcc(Expanded, Directory, File, Config);
  case CompilerKind::Clang:
    T.Kind = CompilerKind::Clang;
    break;
  case CompilerKind::Unknown:
    break;
  }
  // clang's own commands (and compilers we do not know) are clang commands already.
  T.Args = std::move(Expanded);
  return T;
}

} // namespace syncwatch
