// syncwatch-lsp: syncwatch's diagnostics in any editor with a Language Server Protocol
// client, beside clangd (which cannot load clang-tidy plugins). Speaks LSP 3.17 over stdio;
// docs/editor.md says how to set up VS Code, Neovim, Emacs and Helix.
//
//   syncwatch-lsp [--compile-commands-dir=DIR] [--checks=GLOBS] [--reports=DIR] [--profile=FILE]
//
// The protocol owns stdout: anything else that would print there (a library's stray
// output) is sent to stderr. The server's own log goes as window/logMessage (editors log
// stderr as errors); stderr has only what went wrong.
#include "JsonRpc.h"
#include "Server.h"

#include "../lint/InstallLayout.h"
#include "../unit/UnitParse.h"
#include "../lint/RunGuard.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace llvm;

static cl::OptionCategory Category("syncwatch-lsp options");
static cl::opt<std::string> DatabaseDir("compile-commands-dir",
                                        cl::desc("the build directory (or compile_commands.json) to read commands from; "
                                                 "default: searched for as clangd does, from each file up"),
                                        cl::cat(Category));
static cl::opt<std::string> Checks("checks",
                                   cl::desc("the checks to run (globs, as --checks of syncwatch-lint); default: the "
                                            "nearest .clang-tidy's Checks, else syncwatch-*"),
                                   cl::cat(Category));
static cl::opt<std::string> Reports("reports",
                                    cl::desc("the folder of runtime reports (libsyncwatch's JSON, syncwatch confirm's) "
                                             "shown on hover; default: <workspace>/.syncwatch"),
                                    cl::cat(Category));
static cl::opt<unsigned> DebounceMs("debounce-ms", cl::desc("wait after an edit before analyzing (default 300)"),
                                    cl::init(300), cl::cat(Category));
static cl::opt<std::string> ProfileFile("profile",
                                        cl::desc("severities from `syncwatch calibrate`'s profile of your GPU and "
                                                 "driver, as syncwatch-lint --profile"),
                                        cl::cat(Category));
static cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA for nvcc commands that name none (default: "
                                                           "$CUDA_PATH, else /usr/local/cuda)"),
                                     cl::cat(Category));

int main(int argc, char **argv) {
  // Editors stop a server with SIGTERM: the preambles' PCH folder ($TMPDIR/syncwatch-pch-*,
  // up to 11 MB) is removed first, by a thread of its own (first: before any other thread).
  syncwatch::cleanUpOnSignals();
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) { OS << "syncwatch-lsp " SYNCWATCH_VERSION "\n"; });
  cl::ParseCommandLineOptions(argc, argv,
                              "syncwatch-lsp: syncwatch's diagnostics over the Language Server Protocol (stdio)\n");
  syncwatch::InstallLayout Layout = syncwatch::findInstallLayout(syncwatch::runningExecutable(argv[0]),
                                                                 SYNCWATCH_BUILD_DIR, SYNCWATCH_SOURCE_DIR);
  if (!Layout.Error.empty()) {
    errs() << "syncwatch-lsp: error: " << Layout.Error << "\n";
    return 2;
  }
  std::optional<syncwatch::CalibrationProfile> Profile;
  if (!ProfileFile.empty()) {
    std::string Error;
    if (!syncwatch::readCalibrationProfile(ProfileFile, Profile.emplace(), Error)) {
      errs() << "syncwatch-lsp: error: " << Error << "\n";
      return 2;
    }
  }
  // The protocol's stream is a copy of stdout; fd 1 itself now goes to stderr.
  int ProtocolFd = ::dup(STDOUT_FILENO);
  std::FILE *Protocol = ProtocolFd >= 0 ? ::fdopen(ProtocolFd, "w") : nullptr;
  if (!Protocol || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    errs() << "syncwatch-lsp: error: cannot set up stdout for the protocol\n";
    return 2;
  }
  syncwatch::enableCrashRecovery();

  syncwatch::lsp::ServerOptions Options;
  Options.Analysis.Database = DatabaseDir;
  Options.Analysis.Checks = Checks;
  Options.Analysis.ResourceDir = SYNCWATCH_CLANG_RESOURCE_DIR;
  std::string Cuda = CudaPath;
  if (Cuda.empty())
    if (const char *Env = std::getenv("CUDA_PATH"); Env && *Env)
      Cuda = Env;
  if (Cuda.empty())
    Cuda = "/usr/local/cuda";
  Options.Analysis.CudaPath = Cuda;
  Options.Analysis.CompatDir = Layout.CompatDir;
  Options.Analysis.Profile = std::move(Profile);
  Options.RuleDocsDir = Layout.RuleDocsDir;
  Options.Reports = Reports;
  Options.DebounceMs = DebounceMs;
  syncwatch::lsp::Channel Channel(stdin, Protocol);
  syncwatch::lsp::Server Server(Channel, std::move(Options));
  return Server.run();
}
