// Turns a build's compile command into the one syncwatch parses: the HOST side of CUDA
// files. Without --cuda-host-only, clang analyzes the device compile only, and host code
// under #ifndef __CUDA_ARCH__ is silently skipped (docs/toolchain.md).
#pragma once

#include "clang/Tooling/ArgumentsAdjusters.h"

#include <string>

namespace syncwatch {

struct HostSideConfig {
  std::string ResourceDir;  // clang's resource dir (cuda_wrappers/ live there)
  std::string CudaPath;     // CUDA install, e.g. /usr/local/cuda
  std::string DefaultGpuArch = "sm_90";
};

// True for CUDA sources by extension or -x cuda/-x cu.
bool isCudaSource(llvm::StringRef File);

clang::tooling::ArgumentsAdjuster hostSideAdjuster(const HostSideConfig &Config);

} // namespace syncwatch
