#include "ReportedPath.h"

#include "clang/Basic/FileManager.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace syncwatch {

std::string reportedPath(llvm::StringRef Spelled, const clang::SourceManager &SM) {
  llvm::vfs::FileSystem &FS = SM.getFileManager().getVirtualFileSystem();
  llvm::SmallString<256> Path(Spelled);
  if (llvm::sys::path::is_relative(Path))
    if (llvm::ErrorOr<std::string> Cwd = FS.getCurrentWorkingDirectory())
      llvm::sys::path::make_absolute(*Cwd, Path);
  llvm::SmallString<256> Clean(Path);
  llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
  if (Clean == Path)
    return std::string(Path);
  llvm::ErrorOr<llvm::vfs::Status> AsSpelled = FS.status(Path);
  if (!AsSpelled)
    return std::string(Clean);
  llvm::ErrorOr<llvm::vfs::Status> AsCleaned = FS.status(Clean);
  return AsCleaned && AsCleaned->equivalent(*AsSpelled) ? std::string(Clean) : std::string(Path);
}

} // namespace syncwatch
