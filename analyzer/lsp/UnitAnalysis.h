// One editor buffer through syncwatch's checks: the compile command found the way clangd
// finds it, translated as syncwatch-lint translates nvcc's, the buffer's text laid over the
// disk, the project's .clang-tidy Checks applied.
#pragma once

#include "../unit/PreludePch.h"

#include "syncwatch/finding.h"
#include "syncwatch/profile.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
}

namespace syncwatch::lsp {

// The compilation databases analyses read, kept for the server's life. Reading and parsing
// compile_commands.json again at every edit cost 0.31 s an edit with a database of 20,000
// commands (8.6 MB; 0.37 s against 0.68 s for ggml-cuda.cu), where clangd keeps its own.
// A file is read again when its size or modification time changed.
class DatabaseCache {
public:
  // File's database, headers and new files given the nearest file's command as clangd
  // gives them; null with Error set when it cannot be read. Reloaded says it was read now.
  std::shared_ptr<const clang::tooling::CompilationDatabase> get(const std::string &File, std::string &Error,
                                                                 bool &Reloaded);

private:
  struct Loaded {
    std::uint64_t Size = 0;
    std::int64_t ModifiedNs = 0;
    std::shared_ptr<const clang::tooling::CompilationDatabase> Database;
  };
  std::mutex M;
  std::map<std::string, Loaded> Files;
};

struct AnalysisConfig {
  std::string Database;     // a build directory or compile_commands.json; "" finds one
  std::string Checks;       // "" reads the nearest .clang-tidy's Checks (default syncwatch-*)
  std::string ResourceDir;  // clang's resource directory
  std::string CudaPath;     // for nvcc entries that do not name one
  std::string CompatDir;    // the nvcc prelude (InstallLayout)
  PreludePchCache *Pchs = nullptr;  // the CUDA prelude's PCHs, kept for the server's life
  DatabaseCache *Databases = nullptr;  // kept for the server's life; null: read at each analysis
  // `syncwatch calibrate`'s profile (--profile): severities from the user's GPU and driver.
  std::optional<CalibrationProfile> Profile;
  // An edit's analysis: only the file's own code after its precompiled preamble
  // (UnitOptions::MainFileScope); the server keeps the headers' findings of the last whole
  // analysis (on open, save, or a new preamble).
  bool MainFileScope = false;
  const std::atomic<bool> *Cancel = nullptr;  // set by an edit that makes this analysis stale
};

struct AnalysisResult {
  std::vector<Finding> Findings;  // in the file and the headers it includes
  std::vector<ToolError> Errors;  // a parse error, a crash
  bool MainFileOnly = false;      // Findings are the file's own only (MainFileScope applied)
  bool Cancelled = false;         // stopped by Cancel: nothing to publish
  std::vector<std::string> FilesRead;  // the unit's files (real paths): a save of one re-analyzes it
  std::string NoCommand;          // set when no compile command was found: why
  std::string DatabaseFile;       // the compile_commands.json used
  std::string Checks;             // the glob applied
  double Seconds = 0;
  // The server's log line of it (what it took, or that it was cancelled): sent as
  // window/logMessage, not written to stderr, which editors log as errors.
  std::string Log;
};

// clangd's search: compile_commands.json in the file's directory or a parent, or in a
// "build" subdirectory of one.
std::string findDatabaseFile(const std::string &SourcePath);

AnalysisResult analyzeBuffer(const std::string &Path, const std::string &Text, const AnalysisConfig &Config);

} // namespace syncwatch::lsp
