// Finding what an nvcc compile command was built with, on disk: the CUDA install of its
// nvcc, that install's version, and the omp.h of its g++ host compiler.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace syncwatch {

// The CUDA install an nvcc at NvccPath belongs to (<install>/bin/nvcc, found on PATH when
// it is a bare name), or "" when that is not a CUDA install with headers.
std::string cudaPathOfNvcc(llvm::StringRef NvccPath);

// CUDA's version as nvcc reports it in __CUDACC_VER_{MAJOR,MINOR,BUILD}__: from
// version.json, the nvcc wheel's dist-info, or cuda.h's CUDA_VERSION (build 0).
struct CudaVersion {
  unsigned Major = 0, Minor = 0, Build = 0;
  bool known() const { return Major != 0; }
};
CudaVersion cudaVersionOf(llvm::StringRef CudaPath);

// The omp.h of the GCC installation a g++ host compiler uses (clang's resource dir has
// none unless libomp-dev is installed), or "".
std::string findGccOmpHeader(llvm::StringRef HostCompiler);

} // namespace syncwatch
