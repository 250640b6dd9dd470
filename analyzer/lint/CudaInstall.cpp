// Finding what an nvcc compile command was built with, on disk (CudaInstall.h): the CUDA
// install of its nvcc, that install's version, and the omp.h of its g++ host compiler.
#include "CudaInstall.h"

#include "syncwatch/json_limits.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/VersionTuple.h"

#include <map>
#include <mutex>
#include <vector>

using namespace llvm;

namespace syncwatch {

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

} // namespace syncwatch
