#include "HostSideArgs.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

namespace syncwatch {

bool isCudaSource(llvm::StringRef File) {
  return llvm::sys::path::extension(File) == ".cu" || llvm::sys::path::extension(File) == ".cuh";
}

clang::tooling::ArgumentsAdjuster hostSideAdjuster(const HostSideConfig &Config) {
  return [Config](const clang::tooling::CommandLineArguments &Args, llvm::StringRef File) {
    clang::tooling::CommandLineArguments Out;
    bool Cuda = isCudaSource(File);
    bool HasArch = false, HasCudaPath = false, HasResourceDir = false, HasCccl = false;
    std::string GivenCudaPath;
    for (std::size_t I = 0; I < Args.size(); ++I) {
      llvm::StringRef A = Args[I];
      if (A.starts_with("--cuda-path="))
        GivenCudaPath = A.drop_front(strlen("--cuda-path=")).str();
      else if (A == "--cuda-path" && I + 1 < Args.size())
        GivenCudaPath = Args[I + 1];
      if (A.ends_with("/include/cccl"))
        HasCccl = true;
      if (A == "-x" && I + 1 < Args.size() &&
          (llvm::StringRef(Args[I + 1]) == "cuda" || llvm::StringRef(Args[I + 1]) == "cu"))
        Cuda = true;
      if (A.starts_with("--cuda-gpu-arch") || A.starts_with("--offload-arch"))
        HasArch = true;
      if (A.starts_with("--cuda-path"))
        HasCudaPath = true;
      if (A.starts_with("-resource-dir"))
        HasResourceDir = true;
      // Device-only compiles would hide the host code we analyze.
      if (A == "--cuda-device-only" || A == "--offload-device-only")
        continue;
      // The clang driver drops -fgpu-default-stream= under -fsyntax-only ("argument
      // unused"), which would lose the per-thread launch semantics: pass it to cc1.
      if (A.starts_with("-fgpu-default-stream=") && (I == 0 || llvm::StringRef(Args[I - 1]) != "-Xclang")) {
        Out.push_back("-Xclang");
        Out.push_back(Args[I]);
        continue;
      }
      Out.push_back(Args[I]);
    }
    if (Out.empty())
      return Out;
    // Insert after argv[0] so a trailing "--" or file name stays last.
    std::vector<std::string> Extra;
    if (!HasResourceDir && !Config.ResourceDir.empty())
      Extra.push_back("-resource-dir=" + Config.ResourceDir);
    if (Cuda) {
      Extra.push_back("--cuda-host-only");
      Extra.push_back("-Wno-unknown-cuda-version");
      // nvcc accepts the 'register' storage class in C++17 code; clang makes it an error.
      Extra.push_back("-Wno-register");
      if (!HasCudaPath && !Config.CudaPath.empty())
        Extra.push_back("--cuda-path=" + Config.CudaPath);
      if (!HasArch)
        Extra.push_back("--cuda-gpu-arch=" + Config.DefaultGpuArch);
      // nvcc adds CCCL (thrust, cub, libcu++ used by cooperative_groups) through
      // nvcc.profile; clang does not (docs/toolchain.md). CUDA 12 keeps them in
      // include/ itself, so only a CUDA with include/cccl gets it.
      std::string Cuda = HasCudaPath ? GivenCudaPath : Config.CudaPath;
      if (!HasCccl && !Cuda.empty() && llvm::sys::fs::is_directory(Cuda + "/include/cccl")) {
        Extra.push_back("-isystem");
        Extra.push_back(Cuda + "/include/cccl");
      }
    }
    Out.insert(Out.begin() + 1, Extra.begin(), Extra.end());
    return Out;
  };
}

} // namespace syncwatch
