// nvcc's options one at a time (internal to NvccTranslation.cpp): reading one from the
// command line by the table (nvcc_options.def), and its action's handler, which turns it into
// clang's flags or into what the command's head needs (NvccCommand). Also the pieces the
// g++ translation shares with them: -I dirs, host compiler flags, nvcc's comma lists.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>
#include <vector>

namespace syncwatch::nvcc {

// What syncwatch does with an nvcc option (the table's Act column).
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

// One row of nvcc_options.def.
struct NvccOption {
  const char *Long;   // without the leading "--"
  const char *Short;  // without the leading "-"
  bool Value;
  bool List;          // nvcc splits the value at commas ("<def>,...")
  Act Action;
};

struct ExpandedOption {
  const NvccOption *Opt = nullptr;
  std::string Value;
  std::string Spelling;  // as written, for Dropped
};

// Reads an nvcc option at Args[I] (advancing I past a separate value). Null Opt when the
// token is not an nvcc option.
ExpandedOption readNvccOption(const std::vector<std::string> &Args, std::size_t &I);

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
// the command's head; what clang has no use for goes to Dropped, as written. CudaPath is the
// command's CUDA install, Directory its working directory (for -I dirs inside the install).
void translateNvccOption(const ExpandedOption &E, llvm::StringRef Directory,
                         llvm::StringRef CudaPath, NvccCommand &N,
                         std::vector<std::string> &Dropped);

// nvcc splits list values at commas; "\," keeps a comma.
std::vector<std::string> splitList(llvm::StringRef V);

// -I dirs inside the CUDA install become -isystem: clang's CUDA mode puts CUDA's headers
// on the system path, which is what keeps their own API calls out of the findings.
void includeDir(const std::string &Dir, bool System, llvm::StringRef CudaPath,
                llvm::StringRef Directory, std::vector<std::string> &Out);

// A flag for the host compiler (nvcc's -Xcompiler, or g++'s own) into Host, unless it would
// break clang's parse (into Dropped); -fopenmp sets OpenMP.
void addHostFlag(const std::string &Flag, std::vector<std::string> &Host,
                 std::vector<std::string> &Dropped, bool &OpenMP);

} // namespace syncwatch::nvcc
