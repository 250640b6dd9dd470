// Where syncwatch's own data files are: the nvcc compat headers (the prelude pre-included
// into nvcc entries) and the rule pages that reports link to.
//
// An installed syncwatch finds them relative to its own binary (/proc/self/exe):
// <prefix>/bin/syncwatch-lint -> <prefix>/share/syncwatch/. Only a binary that is still in
// the build tree it was built in uses the source checkout, so an install, a .deb or a
// copied prefix never depends on where it was built.
#pragma once

#include <string>

namespace syncwatch {

struct InstallLayout {
  std::string CompatDir;  // syncwatch_nvcc_compat.h, openmp/omp.h
  std::string RuleDocsDir; // <rule-id>.md
  std::string Error;      // set when neither layout is there: the tool cannot run
};

// ExePath: the running binary's real path. BuildDir and SourceDir: where it was built from
// (compile-time); the source layout applies only while ExePath is under BuildDir.
InstallLayout findInstallLayout(const std::string &ExePath, const std::string &BuildDir,
                                const std::string &SourceDir);

// The running binary's path (llvm::sys::fs::getMainExecutable, i.e. /proc/self/exe).
std::string runningExecutable(const char *Argv0);

} // namespace syncwatch
