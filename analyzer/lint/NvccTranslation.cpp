#include "NvccTranslation.h"

#include "syncwatch/json_limits.h"

#include "clang/Basic/OffloadArch.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/VersionTuple.h"

#include <map>
#include <mutex>
#include <set>

using namespace llvm;

namespace syncwatch {
namespace {

// What syncwatch does with an nvcc option. The table below is nvcc 13.0's `nvcc --help`,
// every option, long and short spelling.
enum class Act {
  Include,          // -I: kept (-isystem when it points into the CUDA install)
  SystemInclude,    // -isystem
  Define,           // -D
  Undefine,         // -U
  PreInclude,       // -include
  Std,              // -std
  Optimize,         // -O: the host optimization level (__OPTIMIZE__)
  Language,         // -x c|c++|cu
  OutputFile,       // -o (ClangTool drops it again)
  Compile,          // -c
  DeviceC,          // -dc: -c with relocatable device code
  DeviceW,          // -dw: relocatable device code
  Rdc,              // -rdc=true|false
  GpuArch,          // -arch
  GpuCode,          // -code
  GenerateCode,     // -gencode arch=..,code=..
  DefaultStream,    // --default-stream legacy|null|per-thread
  CompilerOptions,  // -Xcompiler a,b: host compiler flags
  HostCompiler,     // -ccbin: dropped, remembered (OpenMP's omp.h is found through it)
  ExtendedLambda,   // nvcc defines __CUDACC_EXTENDED_LAMBDA__; clang needs no flag
  RelaxedConstexpr, // nvcc defines __CUDACC_RELAXED_CONSTEXPR__; clang's default
  NoExceptions,     // -noeh: -fno-exceptions
  NoWarnings,       // -w
  Machine,          // -m 64: -m64
  TemplateDepth,    // -ftemplate-depth N
  TemplateBacktrace,// -ftemplate-backtrace-limit N
  OptionsFile,      // --options-file: expanded like @file
  Drop,             // device code generation, the link, the build's own files: no meaning
                    // for parsing the host side
};

struct NvccOption {
  const char *Long;   // without the leading "--"
  const char *Short;  // without the leading "-"
  bool Value;
  Act Action;
};

const NvccOption NvccOptions[] = {
    // Modes. Whatever the entry asked nvcc to produce, syncwatch parses the host side.
    {"cuda", "cuda", false, Act::Drop},
    {"cubin", "cubin", false, Act::Drop},
    {"fatbin", "fatbin", false, Act::Drop},
    {"ptx", "ptx", false, Act::Drop},
    {"optix-ir", "optix-ir", false, Act::Drop},
    {"ltoir", "ltoir", false, Act::Drop},
    {"preprocess", "E", false, Act::Drop},
    {"generate-dependencies", "M", false, Act::Drop},
    {"generate-nonsystem-dependencies", "MM", false, Act::Drop},
    {"generate-dependencies-with-compile", "MD", false, Act::Drop},
    {"generate-nonsystem-dependencies-with-compile", "MMD", false, Act::Drop},
    {"dependency-output", "MF", true, Act::Drop},
    {"generate-dependency-targets", "MP", false, Act::Drop},
    {"dependency-target-name", "MT", true, Act::Drop},
    {"compile", "c", false, Act::Compile},
    {"device-c", "dc", false, Act::DeviceC},
    {"device-w", "dw", false, Act::DeviceW},
    {"device-link", "dlink", false, Act::Drop},
    {"link", "link", false, Act::Drop},
    {"lib", "lib", false, Act::Drop},
    {"run", "run", false, Act::Drop},
    // Files and paths.
    {"output-file", "o", true, Act::OutputFile},
    {"pre-include", "include", true, Act::PreInclude},
    {"objdir-as-tempdir", "objtemp", false, Act::Drop},
    {"library", "l", true, Act::Drop},
    {"define-macro", "D", true, Act::Define},
    {"undefine-macro", "U", true, Act::Undefine},
    {"include-path", "I", true, Act::Include},
    {"system-include", "isystem", true, Act::SystemInclude},
    {"library-path", "L", true, Act::Drop},
    {"output-directory", "odir", true, Act::Drop},
    {"compiler-bindir", "ccbin", true, Act::HostCompiler},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", false, Act::Drop},
    {"archiver-binary", "arbin", true, Act::Drop},
    {"cudart", "cudart", true, Act::Drop},
    {"cudadevrt", "cudadevrt", true, Act::Drop},
    {"libdevice-directory", "ldir", true, Act::Drop},
    {"target-directory", "target-dir", true, Act::Drop},
    {"use-local-env", "use-local-env", false, Act::Drop},
    {"force-cl-env-setup", "force-cl-env-setup", false, Act::Drop},
    // Debugging and optimization.
    {"profile", "pg", false, Act::Drop},
    {"debug", "g", false, Act::Drop},
    {"device-debug", "G", false, Act::Drop},
    {"generate-line-info", "lineinfo", false, Act::Drop},
    {"optimization-info", "opt-info", true, Act::Drop},
    {"optimize", "O", true, Act::Optimize},
    {"Ofast-compile", "Ofc", true, Act::Drop},
    {"dopt", "dopt", true, Act::Drop},
    {"dlink-time-opt", "dlto", false, Act::Drop},
    {"lto", "lto", false, Act::Drop},
    {"gen-opt-lto", "gen-opt-lto", false, Act::Drop},
    {"ftemplate-backtrace-limit", "ftemplate-backtrace-limit", true, Act::TemplateBacktrace},
    {"ftemplate-depth", "ftemplate-depth", true, Act::TemplateDepth},
    {"no-exceptions", "noeh", false, Act::NoExceptions},
    {"shared", "shared", false, Act::Drop},
    // Language.
    {"x", "x", true, Act::Language},
    {"std", "std", true, Act::Std},
    {"no-host-device-initializer-list", "nohdinitlist", false, Act::Drop},
    {"no-host-device-move-forward", "nohdmoveforward", false, Act::Drop},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", false, Act::RelaxedConstexpr},
    {"extended-lambda", "extended-lambda", false, Act::ExtendedLambda},
    {"expt-extended-lambda", "expt-extended-lambda", false, Act::ExtendedLambda},
    {"machine", "m", true, Act::Machine},
    {"m64", "m64", false, Act::Machine},
    // Options for the tools nvcc runs.
    {"compiler-options", "Xcompiler", true, Act::CompilerOptions},
    {"linker-options", "Xlinker", true, Act::Drop},
    {"archive-options", "Xarchive", true, Act::Drop},
    {"ptxas-options", "Xptxas", true, Act::Drop},
    {"nvlink-options", "Xnvlink", true, Act::Drop},
    {"static-global-template-stub", "static-global-template-stub", true, Act::Drop},
    {"device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", true, Act::Drop},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", false, Act::Drop},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", false, Act::Drop},
    {"forward-unknown-opts", "forward-unknown-opts", false, Act::Drop},
    {"dont-use-profile", "noprof", false, Act::Drop},
    {"dryrun", "dryrun", false, Act::Drop},
    {"verbose", "v", false, Act::Drop},
    {"threads", "t", true, Act::Drop},
    {"split-compile", "split-compile", true, Act::Drop},
    {"split-compile-extended", "split-compile-extended", true, Act::Drop},
    {"fdevice-syntax-only", "fdevice-syntax-only", false, Act::Drop},
    {"fdevice-time-trace", "fdevice-time-trace", true, Act::Drop},
    {"keep", "keep", false, Act::Drop},
    {"keep-dir", "keep-dir", true, Act::Drop},
    {"save-temps", "save-temps", false, Act::Drop},
    {"clean-targets", "clean", false, Act::Drop},
    {"time", "time", true, Act::Drop},
    {"run-args", "run-args", true, Act::Drop},
    {"input-drive-prefix", "idp", true, Act::Drop},
    {"dependency-drive-prefix", "ddp", true, Act::Drop},
    {"drive-prefix", "dp", true, Act::Drop},
    {"no-align-double", "no-align-double", false, Act::Drop},
    {"no-device-link", "nodlink", false, Act::Drop},
    // GPU code generation.
    {"gpu-architecture", "arch", true, Act::GpuArch},
    {"gpu-code", "code", true, Act::GpuCode},
    {"generate-code", "gencode", true, Act::GenerateCode},
    {"relocatable-device-code", "rdc", true, Act::Rdc},
    {"entries", "e", true, Act::Drop},
    {"maxrregcount", "maxrregcount", true, Act::Drop},
    {"use_fast_math", "use_fast_math", false, Act::Drop},
    {"ftz", "ftz", true, Act::Drop},
    {"prec-div", "prec-div", true, Act::Drop},
    {"prec-sqrt", "prec-sqrt", true, Act::Drop},
    {"fmad", "fmad", true, Act::Drop},
    {"extra-device-vectorization", "extra-device-vectorization", false, Act::Drop},
    {"default-stream", "default-stream", true, Act::DefaultStream},
    {"disable-warnings", "w", false, Act::NoWarnings},
    {"keep-device-functions", "keep-device-functions", false, Act::Drop},
    {"source-in-ptx", "src-in-ptx", false, Act::Drop},
    {"restrict", "restrict", false, Act::Drop},
    // nvcc's own diagnostics (same spellings as some g++ flags: nvcc reads them first).
    {"Wreorder", "Wreorder", false, Act::Drop},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", false, Act::Drop},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", false, Act::Drop},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", false, Act::Drop},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", false, Act::Drop},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", false, Act::Drop},
    {"Werror", "Werror", true, Act::Drop},
    {"resource-usage", "res-usage", false, Act::Drop},
    {"extensible-whole-program", "ewp", false, Act::Drop},
    {"no-compress", "no-compress", false, Act::Drop},
    {"qpp-config", "qpp-config", false, Act::Drop},
    {"compile-as-tools-patch", "astoolspatch", false, Act::Drop},
    {"list-gpu-code", "code-ls", false, Act::Drop},
    {"list-gpu-arch", "arch-ls", false, Act::Drop},
    {"display-error-number", "err-no", false, Act::Drop},
    {"no-display-error-number", "no-err-no", false, Act::Drop},
    {"diag-error", "diag-error", true, Act::Drop},
    {"diag-suppress", "diag-suppress", true, Act::Drop},
    {"diag-warn", "diag-warn", true, Act::Drop},
    {"host-linker-script", "hls", true, Act::Drop},
    {"augment-host-linker-script", "aug-hls", false, Act::Drop},
    {"relocatable-link", "r", false, Act::Drop},
    {"brief-diagnostics", "brief-diag", true, Act::Drop},
    {"jump-table-density", "jtd", true, Act::Drop},
    {"relocatable-ptx", "reloc-ptx", false, Act::Drop},
    {"device-stack-protector", "device-stack-protector", true, Act::Drop},
    {"compress-mode", "compress-mode", true, Act::Drop},
    {"frandom-seed", "frandom-seed", true, Act::Drop},
    {"sanitize", "sanitize", true, Act::Drop},
    {"jobserver", "jobserver", false, Act::Drop},
    {"help", "h", false, Act::Drop},
    {"version", "V", false, Act::Drop},
    {"options-file", "optf", true, Act::OptionsFile},
    // Not in --help, common in real builds: options for nvcc's front end and cicc.
    {"Xcudafe", "Xcudafe", true, Act::Drop},
    {"Xcicc", "Xcicc", true, Act::Drop},
};

// Options whose value nvcc splits at commas ("<def>,...").
bool isListOption(Act A) {
  switch (A) {
  case Act::Include:
  case Act::SystemInclude:
  case Act::Define:
  case Act::Undefine:
  case Act::PreInclude:
  case Act::CompilerOptions:
  case Act::GpuCode:
  case Act::OptionsFile:
    return true;
  default:
    return false;
  }
}

const NvccOption *findNvccOption(StringRef Name, bool LongForm) {
  for (const NvccOption &O : NvccOptions)
    if (Name == (LongForm ? O.Long : O.Short))
      return &O;
  return nullptr;
}

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

// nvcc splits list values at commas; "\," keeps a comma.
std::vector<std::string> splitList(StringRef V) {
  std::vector<std::string> Out(1);
  for (std::size_t I = 0; I < V.size(); ++I) {
    if (V[I] == '\\' && I + 1 < V.size() && V[I + 1] == ',') {
      Out.back() += ',';
      ++I;
    } else if (V[I] == ',') {
      Out.emplace_back();
    } else {
      Out.back() += V[I];
    }
  }
  llvm::erase_if(Out, [](const std::string &S) { return S.empty(); });
  return Out;
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

// True when Dir lies inside the CUDA install (its include/ or targets/*/include/).
bool insideCuda(StringRef Dir, StringRef CudaPath, StringRef Directory) {
  if (CudaPath.empty())
    return false;
  SmallString<256> D(Dir), C(CudaPath);
  if (sys::path::is_relative(D))
    sys::path::make_absolute(Directory, D);
  sys::path::remove_dots(D, true);
  SmallString<256> RD, RC;
  if (!sys::fs::real_path(D, RD) && !sys::fs::real_path(C, RC))
    return StringRef(RD).starts_with(RC) &&
           (RD.size() == RC.size() || RD[RC.size()] == '/');
  return StringRef(D).starts_with(C);
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

// The architectures named in -gencode's "arch=compute_90,code=[compute_90,sm_90]".
void archesOfGencode(StringRef V, std::vector<std::string> &Out) {
  Regex Re("(sm|compute|lto)_[0-9]+[af]?");
  SmallVector<StringRef, 2> M;
  StringRef Rest = V;
  while (Re.match(Rest, &M)) {
    Out.push_back(M[0].str());
    Rest = Rest.substr(M[0].data() - Rest.data() + M[0].size());
  }
}

// Flags a host compiler (g++, or nvcc's host side) accepts that would break clang's parse:
// warnings made errors differ between compilers, and clang's warnings are not g++'s.
bool isWarningAsError(StringRef A) {
  return A == "-Werror" || A.starts_with("-Werror=") || A == "-pedantic-errors";
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

struct ExpandedOption {
  const NvccOption *Opt = nullptr;
  std::string Value;
  std::string Spelling;  // as written, for Dropped
};

// Reads an nvcc option at Args[I] (advancing I past a separate value). Null Opt when the
// token is not an nvcc option.
ExpandedOption readNvccOption(const std::vector<std::string> &Args, std::size_t &I) {
  ExpandedOption R;
  StringRef A = Args[I];
  R.Spelling = A.str();
  bool Long = A.starts_with("--");
  StringRef Body = A.drop_front(Long ? 2 : 1);
  StringRef Name = Body, Inline;
  bool HasInline = false;
  if (auto Eq = Body.find('='); Eq != StringRef::npos) {
    Name = Body.substr(0, Eq);
    Inline = Body.substr(Eq + 1);
    HasInline = true;
  }
  const NvccOption *O = findNvccOption(Name, Long);
  if (O && !O->Value && HasInline)
    O = nullptr;  // "-Wreorder=x" is no nvcc option
  // -I/usr/include, -DX=1, -O3, -lfoo: one-letter short options take an attached value.
  if (!O && !Long && Body.size() > 1) {
    for (StringRef One : {"I", "D", "U", "L", "l", "O", "o", "x"})
      if (Body.starts_with(One)) {
        const NvccOption *Candidate = findNvccOption(One, false);
        if (Candidate && Candidate->Value && !findNvccOption(Name, false)) {
          O = Candidate;
          Inline = Body.substr(1);
          if (Inline.starts_with("="))
            Inline = Inline.drop_front();
          HasInline = true;
        }
        break;
      }
  }
  if (!O)
    return R;
  R.Opt = O;
  if (O->Value) {
    if (HasInline) {
      R.Value = Inline.str();
    } else if (I + 1 < Args.size()) {
      R.Value = Args[++I];
      R.Spelling += " " + R.Value;
    }
  }
  return R;
}

void addHostFlag(const std::string &Flag, std::vector<std::string> &Host,
                 std::vector<std::string> &Dropped, bool &OpenMP) {
  if (isWarningAsError(Flag)) {
    Dropped.push_back(Flag);
    return;
  }
  if (Flag == "-fopenmp" || StringRef(Flag).starts_with("-fopenmp="))
    OpenMP = true;
  Host.push_back(Flag);
}

// -I dirs inside the CUDA install become -isystem: clang's CUDA mode puts CUDA's headers
// on the system path, which is what keeps their own API calls out of the findings.
void includeDir(const std::string &Dir, bool System, StringRef CudaPath, StringRef Directory,
                std::vector<std::string> &Out) {
  if (System || insideCuda(Dir, CudaPath, Directory)) {
    Out.push_back("-isystem");
    Out.push_back(Dir);
  } else {
    Out.push_back("-I" + Dir);
  }
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

// What translateNvcc reads from nvcc's arguments before it writes clang's command: the
// options that translate one for one (in order), the sources, and what decides the rest
// of the command (the language, the GPU architectures, rdc, the default stream, OpenMP).
struct NvccCommand {
  std::vector<std::string> Flags;    // the translated options, in order
  std::vector<std::string> Inputs;   // the source file(s)
  std::vector<std::string> Arches, Defines;
  std::string Language, DefaultStream, HostCompiler = "g++";
  bool Rdc = false, OpenMP = false;
};

// One nvcc option (readNvccOption) into clang's flags, or into what NvccCommand records for
// the command's head; what clang has no use for goes to T.Dropped, as written.
void translateNvccOption(const ExpandedOption &E, StringRef Directory, TranslatedCommand &T, NvccCommand &N) {
  std::vector<std::string> Values =
      isListOption(E.Opt->Action) ? splitList(E.Value) : std::vector<std::string>{E.Value};
  switch (E.Opt->Action) {
  case Act::Include:
  case Act::SystemInclude:
    for (const std::string &V : Values)
      includeDir(V, E.Opt->Action == Act::SystemInclude, T.CudaPath, Directory, N.Flags);
    break;
  case Act::Define:
    for (const std::string &V : Values)
      N.Flags.push_back("-D" + V);
    break;
  case Act::Undefine:
    for (const std::string &V : Values)
      N.Flags.push_back("-U" + V);
    break;
  case Act::PreInclude:
    for (const std::string &V : Values) {
      N.Flags.push_back("-include");
      N.Flags.push_back(V);
    }
    break;
  case Act::Std:
    N.Flags.push_back("-std=" + E.Value);
    break;
  case Act::Optimize:
    N.Flags.push_back("-O" + E.Value);
    break;
  case Act::Language:
    N.Language = E.Value;
    break;
  case Act::OutputFile:
    N.Flags.push_back("-o");
    N.Flags.push_back(E.Value);
    break;
  case Act::Compile:
    N.Flags.push_back("-c");
    break;
  case Act::DeviceC:
    N.Flags.push_back("-c");
    N.Rdc = true;
    break;
  case Act::DeviceW:
    N.Rdc = true;
    break;
  case Act::Rdc:
    N.Rdc = StringRef(E.Value).equals_insensitive("true");
    break;
  case Act::GpuArch:
  case Act::GpuCode:
    for (const std::string &V : splitList(E.Value))
      N.Arches.push_back(V);
    break;
  case Act::GenerateCode:
    archesOfGencode(E.Value, N.Arches);
    break;
  case Act::DefaultStream:
    N.DefaultStream = E.Value == "per-thread" ? "per-thread" : "legacy";
    break;
  case Act::CompilerOptions:
    for (const std::string &V : Values) {
      // "-Xcompiler '-O3 -Wall'" hands several options in one value.
      BumpPtrAllocator Alloc;
      StringSaver Saver(Alloc);
      SmallVector<const char *, 8> Parts;
      cl::TokenizeGNUCommandLine(V, Saver, Parts);
      for (const char *P : Parts)
        addHostFlag(P, N.Flags, T.Dropped, N.OpenMP);
    }
    break;
  case Act::HostCompiler:
    N.HostCompiler = E.Value;
    T.Dropped.push_back(E.Spelling);
    break;
  case Act::ExtendedLambda:
    N.Defines.push_back("__CUDACC_EXTENDED_LAMBDA__");
    T.Dropped.push_back(E.Spelling);
    break;
  case Act::RelaxedConstexpr:
    N.Defines.push_back("__CUDACC_RELAXED_CONSTEXPR__");
    T.Dropped.push_back(E.Spelling);
    break;
  case Act::NoExceptions:
    N.Flags.push_back("-fno-exceptions");
    break;
  case Act::NoWarnings:
    N.Flags.push_back("-w");
    break;
  case Act::Machine:
    N.Flags.push_back("-m64");
    break;
  case Act::TemplateDepth:
    N.Flags.push_back("-ftemplate-depth=" + E.Value);
    break;
  case Act::TemplateBacktrace:
    N.Flags.push_back("-ftemplate-backtrace-limit=" + E.Value);
    break;
  case Act::OptionsFile:  // expanded before
  case Act::Drop:
    T.Dropped.push_back(E.Spelling);
    break;
  }
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
    translateNvccOption(E, Directory, T, N);
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

// A CUDA install has its headers and its device compiler (nvvm/) side by side. Headers
// alone are not one: /usr/local/bin/nvcc is often a wrapper script beside links to
// CUDA's headers in /usr/local/include, and --cuda-path=/usr/local would lose libdevice.
static bool isCudaInstall(StringRef Dir) {
  SmallString<256> Header(Dir), Nvvm(Dir);
  sys::path::append(Header, "include", "cuda_runtime.h");
  sys::path::append(Nvvm, "nvvm");
  return sys::fs::exists(Header) && sys::fs::is_directory(Nvvm);
}

std::string cudaPathOfNvcc(StringRef NvccPath) {
  std::string Path = NvccPath.str();
  if (!sys::path::has_parent_path(Path)) {
    auto Found = sys::findProgramByName(Path);
    if (!Found)
      return "";
    Path = *Found;
  }
  SmallString<256> Real;
  if (sys::fs::real_path(Path, Real))
    Real = Path;
  StringRef Bin = sys::path::parent_path(Real);
  if (sys::path::filename(Bin) != "bin")
    return "";
  // Keep the spelling of the path the database used (/usr/local/cuda rather than the
  // cuda-13.0 it links to) when it is a CUDA install itself.
  SmallString<256> Written(sys::path::parent_path(sys::path::parent_path(Path)));
  if (!Written.empty() && isCudaInstall(Written))
    return std::string(Written);
  std::string Install = sys::path::parent_path(Bin).str();
  return isCudaInstall(Install) ? Install : "";
}

CudaVersion cudaVersionOf(StringRef CudaPath) {
  static std::mutex Lock;
  static std::map<std::string, CudaVersion> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Cache.try_emplace(CudaPath.str());
  if (!New || CudaPath.empty())
    return It->second;
  CudaVersion &V = It->second;
  auto parse = [&](StringRef S) {
    SmallVector<StringRef, 3> Parts;
    S.split(Parts, '.');
    if (Parts.size() >= 2 && !Parts[0].getAsInteger(10, V.Major) &&
        !Parts[1].getAsInteger(10, V.Minor)) {
      if (Parts.size() >= 3)
        (void)Parts[2].getAsInteger(10, V.Build);
      return true;
    }
    V = CudaVersion();
    return false;
  };
  SmallString<256> P(CudaPath);
  sys::path::append(P, "version.json");
  if (auto Buf = MemoryBuffer::getFile(P)) {
    if (auto J = jsonLimitsError((*Buf)->getBuffer()).empty() ? json::parse((*Buf)->getBuffer())
                                                              : Expected<json::Value>(createStringError("too deep")))
      if (const json::Object *O = J->getAsObject())
        if (const json::Object *Nvcc = O->getObject("cuda_nvcc"))
          if (auto S = Nvcc->getString("version"); S && parse(*S))
            return V;
  }
  // CUDA installed from NVIDIA's wheels: dist-info/nvidia_cuda_nvcc-13.0.88.dist-info.
  P = CudaPath;
  sys::path::append(P, "dist-info");
  std::error_code EC;
  for (sys::fs::directory_iterator D(P, EC), End; !EC && D != End; D.increment(EC)) {
    StringRef Name = sys::path::filename(D->path());
    if (Name.consume_front("nvidia_cuda_nvcc-") && Name.consume_back(".dist-info") && parse(Name))
      return V;
  }
  P = CudaPath;
  sys::path::append(P, "include", "cuda.h");
  if (auto Buf = MemoryBuffer::getFile(P)) {
    Regex Re("#define CUDA_VERSION ([0-9]+)");
    SmallVector<StringRef, 2> M;
    unsigned N = 0;
    if (Re.match((*Buf)->getBuffer(), &M) && !M[1].getAsInteger(10, N) && N >= 1000) {
      V.Major = N / 1000;
      V.Minor = (N % 1000) / 10;
    }
  }
  return V;
}

std::string findGccOmpHeader(StringRef HostCompiler) {
  static std::mutex Lock;
  static std::map<std::string, std::string> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Cache.try_emplace(HostCompiler.str());
  if (!New)
    return It->second;
  // <prefix>/lib/gcc/<triple>/<version>/include/omp.h, for the host compiler's prefix
  // first (an -ccbin /opt/gcc-13/bin/g++), then the system's; the newest version wins.
  std::vector<std::string> Prefixes;
  std::string Compiler = HostCompiler.str();
  if (!Compiler.empty() && !sys::path::has_parent_path(Compiler))
    if (auto Found = sys::findProgramByName(Compiler))
      Compiler = *Found;
  SmallString<256> Real;
  if (!Compiler.empty() && !sys::fs::real_path(Compiler, Real))
    Prefixes.push_back(sys::path::parent_path(sys::path::parent_path(Real)).str());
  Prefixes.push_back("/usr");
  for (const std::string &Prefix : Prefixes) {
    std::string Best;
    VersionTuple BestVersion;
    for (StringRef LibDir : {"lib", "lib64"}) {
      SmallString<256> Gcc(Prefix);
      sys::path::append(Gcc, LibDir, "gcc");
      std::error_code EC;
      for (sys::fs::directory_iterator T(Gcc, EC), End; !EC && T != End; T.increment(EC)) {
        std::error_code EC2;
        for (sys::fs::directory_iterator Ver(T->path(), EC2); !EC2 && Ver != End; Ver.increment(EC2)) {
          SmallString<256> Omp(Ver->path());
          sys::path::append(Omp, "include", "omp.h");
          VersionTuple VT;
          if (!sys::fs::exists(Omp) || VT.tryParse(sys::path::filename(Ver->path())))
            continue;
          if (Best.empty() || VT > BestVersion) {
            Best = std::string(Omp);
            BestVersion = VT;
          }
        }
      }
    }
    if (!Best.empty())
      return It->second = Best;
  }
  return It->second;
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

std::vector<clang::tooling::CompileCommand>
TranslatingDatabase::getCompileCommands(StringRef File) const {
  std::vector<clang::tooling::CompileCommand> Commands = Base.getCompileCommands(File);
  for (clang::tooling::CompileCommand &C : Commands) {
    TranslatedCommand T = translateCommand(C.CommandLine, C.Directory, C.Filename, Config);
    if (T.Error.empty())
      C.CommandLine = std::move(T.Args);
  }
  return Commands;
}

std::vector<clang::tooling::CompileCommand> TranslatingDatabase::getAllCompileCommands() const {
  std::vector<clang::tooling::CompileCommand> Out;
  for (const std::string &F : getAllFiles())
    for (clang::tooling::CompileCommand &C : getCompileCommands(F))
      Out.push_back(std::move(C));
  return Out;
}

std::string TranslatingDatabase::translationError(StringRef File) const {
  for (const clang::tooling::CompileCommand &C : Base.getCompileCommands(File)) {
    TranslatedCommand T = translateCommand(C.CommandLine, C.Directory, C.Filename, Config);
    if (!T.Error.empty())
      return T.Error;
  }
  return "";
}

} // namespace syncwatch
