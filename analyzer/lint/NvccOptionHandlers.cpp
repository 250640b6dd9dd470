// nvcc's options one at a time: the table (nvcc_options.def) that names them, reading one
// from a command line, and one handler per action, which turns the option into clang's
// flags or into what the command's head needs (NvccCommand). NvccTranslation.cpp reads the
// whole command with them and writes clang's.
#include "NvccOptionHandlers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace syncwatch::nvcc {
namespace {

// nvcc 13.0's options, every one, long and short spelling (nvcc_options.def says more).
const NvccOption NvccOptions[] = {
#define NVCC_OPTION(Long, Short, Value, List, Action) {Long, Short, Value, List, Act::Action},
#include "nvcc_options.def"
};

const NvccOption *findNvccOption(StringRef Name, bool LongForm) {
  for (const NvccOption &O : NvccOptions)
    if (Name == (LongForm ? O.Long : O.Short))
      return &O;
  return nullptr;
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

// What a handler reads (the option, its value(s), the command's directory and CUDA install)
// and where it writes (the command being read, the options left out).
struct OptionUse {
  const ExpandedOption &E;
  const std::vector<std::string> &Values;  // E.Value, split at commas for a List option
  StringRef Directory, CudaPath;
  NvccCommand &N;
  std::vector<std::string> &Dropped;
};

// ---- the handlers, one per action (or per actions handled alike) ----------------------

// -I, -isystem: each directory.
void includePaths(const OptionUse &U, bool System) {
  for (const std::string &V : U.Values)
    includeDir(V, System, U.CudaPath, U.Directory, U.N.Flags);
}

// -D, -U: each value, after clang's flag.
void eachValueAfter(const OptionUse &U, StringRef Flag) {
  for (const std::string &V : U.Values)
    U.N.Flags.push_back(Flag.str() + V);
}

// -include: each file.
void preIncludes(const OptionUse &U) {
  for (const std::string &V : U.Values) {
    U.N.Flags.push_back("-include");
    U.N.Flags.push_back(V);
  }
}

// -std, -O, -ftemplate-depth, -ftemplate-backtrace-limit: clang's flag, the value attached.
void valueAfter(const OptionUse &U, StringRef Flag) {
  U.N.Flags.push_back(Flag.str() + U.E.Value);
}

// -c, -noeh, -w, -m 64: one clang flag.
void clangFlag(const OptionUse &U, StringRef Flag) { U.N.Flags.push_back(Flag.str()); }

// -o (ClangTool drops it again).
void outputFile(const OptionUse &U) {
  U.N.Flags.push_back("-o");
  U.N.Flags.push_back(U.E.Value);
}

// -x c|c++|cu: decides the command's head (translateNvcc).
void language(const OptionUse &U) { U.N.Language = U.E.Value; }

// -dc: -c with relocatable device code.
void deviceC(const OptionUse &U) {
  U.N.Flags.push_back("-c");
  U.N.Rdc = true;
}

// -dw: relocatable device code.
void deviceW(const OptionUse &U) { U.N.Rdc = true; }

// -rdc=true|false.
void rdc(const OptionUse &U) { U.N.Rdc = StringRef(U.E.Value).equals_insensitive("true"); }

// -arch, -code: each architecture of the comma list (-arch's too).
void gpuArches(const OptionUse &U) {
  for (const std::string &V : splitList(U.E.Value))
    U.N.Arches.push_back(V);
}

// -gencode: the value whole, its "arch=..,code=[..]" commas being the specification's own.
void generateCode(const OptionUse &U) { archesOfGencode(U.E.Value, U.N.Arches); }

// --default-stream legacy|null|per-thread: null is legacy.
void defaultStream(const OptionUse &U) {
  U.N.DefaultStream = U.E.Value == "per-thread" ? "per-thread" : "legacy";
}

// -Xcompiler: each value, as host compiler flags.
void compilerOptions(const OptionUse &U) {
  for (const std::string &V : U.Values) {
    // "-Xcompiler '-O3 -Wall'" hands several options in one value.
    BumpPtrAllocator Alloc;
    StringSaver Saver(Alloc);
    SmallVector<const char *, 8> Parts;
    cl::TokenizeGNUCommandLine(V, Saver, Parts);
    for (const char *P : Parts)
      addHostFlag(P, U.N.Flags, U.Dropped, U.N.OpenMP);
  }
}

// -ccbin: dropped, remembered (OpenMP's omp.h is found through it).
void hostCompiler(const OptionUse &U) {
  U.N.HostCompiler = U.E.Value;
  U.Dropped.push_back(U.E.Spelling);
}

// --extended-lambda, --expt-relaxed-constexpr: the macro nvcc defines, and no flag.
void nvccMacro(const OptionUse &U, StringRef Macro) {
  U.N.Defines.push_back(Macro.str());
  U.Dropped.push_back(U.E.Spelling);
}

// No meaning for parsing the host side: left out, as written.
void drop(const OptionUse &U) { U.Dropped.push_back(U.E.Spelling); }

} // namespace

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

// The option's action picks its handler.
void translateNvccOption(const ExpandedOption &E, StringRef Directory, StringRef CudaPath,
                         NvccCommand &N, std::vector<std::string> &Dropped) {
  std::vector<std::string> Values =
      E.Opt->List ? splitList(E.Value) : std::vector<std::string>{E.Value};
  const OptionUse U{E, Values, Directory, CudaPath, N, Dropped};
  switch (E.Opt->Action) {
  case Act::Include:           return includePaths(U, false);
  case Act::SystemInclude:     return includePaths(U, true);
  case Act::Define:            return eachValueAfter(U, "-D");
  case Act::Undefine:          return eachValueAfter(U, "-U");
  case Act::PreInclude:        return preIncludes(U);
  case Act::Std:               return valueAfter(U, "-std=");
  case Act::Optimize:          return valueAfter(U, "-O");
  case Act::TemplateDepth:     return valueAfter(U, "-ftemplate-depth=");
  case Act::TemplateBacktrace: return valueAfter(U, "-ftemplate-backtrace-limit=");
  case Act::Language:          return language(U);
  case Act::OutputFile:        return outputFile(U);
  case Act::Compile:           return clangFlag(U, "-c");
  case Act::NoExceptions:      return clangFlag(U, "-fno-exceptions");
  case Act::NoWarnings:        return clangFlag(U, "-w");
  case Act::Machine:           return clangFlag(U, "-m64");
  case Act::DeviceC:           return deviceC(U);
  case Act::DeviceW:           return deviceW(U);
  case Act::Rdc:               return rdc(U);
  case Act::GpuArch:
  case Act::GpuCode:           return gpuArches(U);
  case Act::GenerateCode:      return generateCode(U);
  case Act::DefaultStream:     return defaultStream(U);
  case Act::CompilerOptions:   return compilerOptions(U);
  case Act::HostCompiler:      return hostCompiler(U);
  case Act::ExtendedLambda:    return nvccMacro(U, "__CUDACC_EXTENDED_LAMBDA__");
  case Act::RelaxedConstexpr:  return nvccMacro(U, "__CUDACC_RELAXED_CONSTEXPR__");
  case Act::OptionsFile:       // expanded before
  case Act::Drop:              return drop(U);
  }
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

} // namespace syncwatch::nvcc
