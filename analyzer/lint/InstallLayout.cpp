#include "InstallLayout.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace syncwatch {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static bool isUnder(llvm::StringRef Path, llvm::StringRef Dir) {
  if (Dir.empty() || !Path.starts_with(Dir))
    return false;
  return Path.size() == Dir.size() || path::is_separator(Path[Dir.size()]);
}

static std::string realPath(llvm::StringRef P) {
  llvm::SmallString<256> Real;
  if (fs::real_path(P, Real))
    return std::string(P);
  return std::string(Real);
}

InstallLayout findInstallLayout(const std::string &ExePath, const std::string &BuildDir,
                                const std::string &SourceDir) {
  InstallLayout L;
  std::string Exe = realPath(ExePath);
  if (!BuildDir.empty() && isUnder(Exe, realPath(BuildDir))) {
    llvm::SmallString<256> Compat(SourceDir), Docs(SourceDir);
    path::append(Compat, "analyzer", "compat");
    path::append(Docs, "docs", "rules");
    L.CompatDir = std::string(Compat);
    L.RuleDocsDir = std::string(Docs);
    return L;
  }
  // <prefix>/bin/<tool> -> <prefix>/share/syncwatch (the path from bin/ is CMake's)
  llvm::SmallString<256> Share(path::parent_path(Exe));
  path::append(Share, SYNCWATCH_BIN_TO_DATA);
  path::remove_dots(Share, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Compat(Share), Docs(Share);
  path::append(Compat, "compat");
  path::append(Docs, "docs", "rules");
  if (!fs::exists(Compat + "/syncwatch_nvcc_compat.h")) {
    L.Error = "cannot find syncwatch's data files: expected " + std::string(Compat) +
              "/syncwatch_nvcc_compat.h next to " + Exe + " (a broken install?)";
    return L;
  }
  L.CompatDir = std::string(Compat);
  L.RuleDocsDir = std::string(Docs);
  return L;
}

std::string runningExecutable(const char *Argv0) {
  static int Anchor;
  return fs::getMainExecutable(Argv0, &Anchor);
}

} // namespace syncwatch
