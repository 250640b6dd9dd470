// Turns the compile commands real CUDA builds write - nvcc's, g++'s for .cpp files that
// call the CUDA runtime, clang's - into clang driver command lines that parse the same
// code on the host side. CMake's CUDA support writes entries such as
//   nvcc -forward-unknown-to-host-compiler -DX -I.. --generate-code=arch=compute_90,..
//        --default-stream per-thread -Xcompiler=-fopenmp -rdc=true -x cu -c f.cu -o f.o
// which clang rejects flag by flag; this file maps each nvcc option to what clang's CUDA
// mode expects (or drops it, when it only steers device code generation or the build),
// finds the CUDA install the entry was built with, and adds what nvcc provides implicitly
// (docs/nvcc-compat.md lists every item with the construct that needed it).
//
// The pieces: this file's translateCommand (NvccTranslation.cpp); nvcc's options and one
// handler per action (nvcc_options.def, NvccOptionHandlers.cpp); the CUDA install and the
// host compiler's omp.h (CudaInstall.h); a compilation database of translated commands
// (TranslatingDatabase.h).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace syncwatch {

enum class CompilerKind { Nvcc, Clang, Gcc, Unknown };

struct TranslationConfig {
  std::string ResourceDir;       // clang's resource dir (to see whether it ships omp.h)
  std::string FallbackCudaPath;  // --cuda-path, else $CUDA_PATH, else /usr/local/cuda
  std::string CompatDir;         // analyzer/compat: syncwatch_nvcc_compat.h, openmp/omp.h
  std::string DefaultGpuArch = "sm_90";
};

struct TranslatedCommand {
  CompilerKind Kind = CompilerKind::Unknown;
  std::vector<std::string> Args;     // a clang driver command line; Args[0] is the driver
  std::string CudaPath;              // the CUDA install of an nvcc entry ("" if none)
  bool Cuda = false;                 // parsed as CUDA (a .cu file, or -x cu)
  std::vector<std::string> Dropped;  // options left out, as written
  std::string Error;                 // non-empty: the command could not be read (an @file)
};

// Which compiler wrote this command: by the driver's name (after a ccache/sccache/distcc
// launcher), or, for a driver with another name, by nvcc-only options on a .cu file.
CompilerKind detectCompiler(llvm::ArrayRef<std::string> Args, llvm::StringRef File);

// Translates one compile command (Args[0] is the compiler) of File, run in Directory.
// Response files (@file, nvcc's --options-file) are expanded relative to Directory.
TranslatedCommand translateCommand(llvm::ArrayRef<std::string> Args, llvm::StringRef Directory,
                                   llvm::StringRef File, const TranslationConfig &Config);

} // namespace syncwatch
