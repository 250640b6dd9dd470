// syncwatch-clang-tidy: runs clang-tidy (with syncwatch's plugin) on a compile command
// that nvcc or g++ would run, translated as syncwatch-lint translates database entries.
//
// CMake hands clang-tidy the raw compiler command after "--", and clang rejects nvcc's
// options; CMake (3.25 and 4.x alike) also runs <LANG>_CLANG_TIDY for C, C++ and
// Objective-C only, never for CUDA. So, in a CMake project:
//   set(CMAKE_CXX_CLANG_TIDY syncwatch-clang-tidy clang-tidy-22 --load=libsyncwatch-tidy.so
//       --checks=-*,syncwatch-*)
//   set(CMAKE_CUDA_COMPILER_LAUNCHER syncwatch-clang-tidy --launcher clang-tidy-22
//       --load=libsyncwatch-tidy.so --checks=-*,syncwatch-* --)
// Forms:
//   syncwatch-clang-tidy [--cuda-path=DIR] TIDY [ARGS...] -- COMPILER ARGS...
//       (as <LANG>_CLANG_TIDY: ARGS name the source) runs TIDY ARGS -- <translated flags>
//   syncwatch-clang-tidy --launcher [--cuda-path=DIR] TIDY [ARGS...] -- COMPILER ARGS...
//       (as <LANG>_COMPILER_LAUNCHER) runs TIDY ARGS <source> -- <translated flags>, then,
//       if clang-tidy succeeded, the compiler command itself; its exit status is the result.
#include "HostSideArgs.h"
#include "InstallLayout.h"
#include "NvccTranslation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

namespace {

constexpr const char *Usage =
    "usage: syncwatch-clang-tidy [--launcher] [--cuda-path=DIR|--cuda-path DIR] CLANG-TIDY "
    "[ARGS...] -- COMPILER ARGS...\n";

int usage(const Twine &Why) {
  errs() << "syncwatch-clang-tidy: error: " << Why << "\n" << Usage;
  return 2;
}

int run(const std::vector<std::string> &Argv) {
  auto Program = sys::findProgramByName(Argv[0]);
  if (!Program) {
    errs() << "syncwatch-clang-tidy: error: cannot find '" << Argv[0] << "'\n";
    return 127;
  }
  std::vector<StringRef> Refs(Argv.begin(), Argv.end());
  std::string Error;
  int Rc = sys::ExecuteAndWait(*Program, Refs, std::nullopt, {}, 0, 0, &Error);
  if (Rc < 0) {
    errs() << "syncwatch-clang-tidy: error: running '" << Argv[0] << "': " << Error << "\n";
    return 2;
  }
  return Rc;
}

bool isSource(StringRef A) {
  StringRef Ext = sys::path::extension(A);
  return Ext == ".cu" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c" ||
         Ext == ".C" || Ext == ".c++";
}

} // namespace

int main(int argc, const char **argv) {
  bool Launcher = false;
  std::string CudaPath;
  int I = 1;
  for (; I < argc; ++I) {
    StringRef A = argv[I];
    // The same conventions as every syncwatch command (--opt=value or --opt value, --help
    // and --version exit 0, an unknown option is one line and exit 2); what follows the
    // options is clang-tidy's command, which is never an option of ours.
    if (A == "--help" || A == "-h") {
      outs() << "syncwatch-clang-tidy: clang-tidy with syncwatch's plugin on an nvcc or g++ "
                "compile command\n"
             << Usage;
      return 0;
    }
    if (A == "--version") {
      outs() << "syncwatch-clang-tidy " SYNCWATCH_VERSION "\n";
      return 0;
    }
    if (A == "--launcher")
      Launcher = true;
    else if (A.consume_front("--cuda-path="))
      CudaPath = A.str();
    else if (A == "--cuda-path") {
      if (I + 1 >= argc)
        return usage("--cuda-path needs a directory");
      CudaPath = argv[++I];
    } else if (A.starts_with("-") && A != "--")
      return usage("unknown option '" + A + "'");
    else
      break;
  }
  std::vector<std::string> Tidy, Compile;
  bool SeenDashDash = false;
  for (; I < argc; ++I) {
    if (!SeenDashDash && StringRef(argv[I]) == "--") {
      SeenDashDash = true;
      continue;
    }
    (SeenDashDash ? Compile : Tidy).push_back(argv[I]);
  }
  if (Tidy.empty())
    return usage("no clang-tidy command");
  if (!SeenDashDash || Compile.empty())
    return usage("no compile command after --");

  // The source: the compile command's input with a source extension (after -c if any).
  std::string Source;
  for (std::size_t J = 1; J < Compile.size(); ++J)
    if (isSource(Compile[J]) && (Source.empty() || Compile[J - 1] == "-c"))
      Source = Compile[J];
  if (Source.empty())
    return usage("no source file in the compile command");

  if (CudaPath.empty())
    if (const char *Env = std::getenv("CUDA_PATH"); Env && *Env)
      CudaPath = Env;
  if (CudaPath.empty() && sys::fs::exists("/usr/local/cuda"))
    CudaPath = "/usr/local/cuda";
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);

  syncwatch::InstallLayout Layout = syncwatch::findInstallLayout(
      syncwatch::runningExecutable(argv[0]), SYNCWATCH_BUILD_DIR, SYNCWATCH_SOURCE_DIR);
  if (!Layout.Error.empty()) {
    errs() << "syncwatch-clang-tidy: error: " << Layout.Error << "\n";
    return 2;
  }
  syncwatch::TranslationConfig Config;
  Config.ResourceDir = SYNCWATCH_CLANG_RESOURCE_DIR;
  Config.FallbackCudaPath = CudaPath;
  Config.CompatDir = Layout.CompatDir;
  syncwatch::TranslatedCommand T = syncwatch::translateCommand(Compile, Cwd, Source, Config);
  if (!T.Error.empty()) {
    errs() << "syncwatch-clang-tidy: error: " << Source << ": " << T.Error << "\n";
    return 2;
  }
  syncwatch::HostSideConfig Host{SYNCWATCH_CLANG_RESOURCE_DIR, CudaPath, "sm_90"};
  std::vector<std::string> Flags = syncwatch::hostSideAdjuster(Host)(T.Args, Source);

  // clang-tidy takes flags after "--": no driver name, no input, no output.
  std::vector<std::string> Argv = Tidy;
  if (Launcher)
    Argv.push_back(Source);
  Argv.push_back("--");
  for (std::size_t J = 1; J < Flags.size(); ++J) {
    if (Flags[J] == "-o" && J + 1 < Flags.size()) {
      ++J;
      continue;
    }
    if (Flags[J] == "-c" || Flags[J] == Source)
      continue;
    Argv.push_back(Flags[J]);
  }
  int TidyRc = run(Argv);
  if (!Launcher)
    return TidyRc;
  if (TidyRc != 0) {
    errs() << "syncwatch-clang-tidy: clang-tidy failed on " << Source << " (exit " << TidyRc
           << "); not compiling it\n";
    return TidyRc;
  }
  return run(Compile);
}
