// Runs the enabled checks over files of a compilation database, in parallel, and
// collects Findings and per-file tool errors.
#pragma once

#include "GlobList.h"
#include "HostSideArgs.h"
#include "../core/SyncwatchCheck.h"

#include "syncwatch/report.h"
#include "syncwatch/unit_summary.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <atomic>
#include <string>
#include <vector>

namespace syncwatch {

class PreludePchCache;  // PreludePch.h

struct LintOptions {
  std::string Checks = "syncwatch-*";
  unsigned Jobs = 0;        // 0: one per core
  // Set by the runner when no thread can be started: files are parsed on the calling thread
  // (without the large parse stack).
  bool ParseOnCallingThread = false;
  bool Progress = false;    // "[n/m] file" on stderr
  HostSideConfig Host;
  std::vector<std::string> ExtraArgs;  // appended to every command (--extra-arg)
  bool UsePch = true;       // share a precompiled CUDA prelude between files (PreludePch.h)
  std::string CacheDir;     // keep each unit's findings between runs (ResultCache.h); "" off
  CheckOptionValues Checking;  // each check reads its own (core/CheckOptions.h)
  // Summaries across units (CrossUnit.h): a second phase analyzes again the units that call
  // a summarized function of another unit, or whose functions other units call with work in
  // flight. Off: each unit alone (--no-cross-unit).
  bool CrossUnit = true;
  // Summaries of units this run does not analyze: other shards' --write-summaries files.
  std::vector<std::pair<std::string, UnitSummary>> ImportedSummaries;
  // Files whose text is not the disk's (an editor's unsaved buffers, syncwatch-lsp): absolute
  // path -> contents, laid over the real file system. The cache is not used with them.
  std::vector<std::pair<std::string, std::string>> Unsaved;
  // Prelude PCHs kept across runs (syncwatch-lsp analyzes one file at every edit): each CUDA
  // command's prelude is then parsed once per server, not once per run. Null: per run.
  PreludePchCache *KeptPchs = nullptr;
  // With an editor's buffer's own preamble precompiled (KeptPchs, Unsaved): analyze only the
  // declarations parsed after it - the file's own code - as clangd scopes clang-tidy, not
  // every declaration of the headers at each edit. The headers' findings are then not
  // reported (LintResult::MainFileOnly). A run that builds the preamble anew analyzes the
  // whole unit anyway. Off: the whole unit, headers included.
  bool MainFileScope = false;
  // Stops the run early when set (syncwatch-lsp: an edit came for the buffer being
  // analyzed): checked between the parse's top-level declarations and before the checks.
  // The result then says Cancelled and holds no findings.
  const std::atomic<bool> *Cancel = nullptr;
};

struct LintResult {
  std::vector<Finding> Findings;   // sorted (sortFindings), NOLINT applied
  std::vector<ToolError> Errors;   // sorted by file
  std::vector<RuleId> RulesRun;
  unsigned FilesAnalyzed = 0;
  // Every file the analyzed units read (real paths, sorted): SARIF's run.artifacts.
  std::vector<std::string> FilesRead;
  // For --stats: the slowest file and its time (seconds of wall time in its worker).
  std::string SlowestFile;
  double SlowestSeconds = 0;
  unsigned Crashes = 0;            // files whose analysis crashed and was recovered
  unsigned Workers = 0;            // parallel workers the run took (0: on the calling thread)
  unsigned PchsBuilt = 0;          // precompiled preludes built
  unsigned PchFallbacks = 0;       // files parsed again without the prelude PCH
  unsigned CacheHits = 0, CacheMisses = 0;  // units taken from / added to --cache-dir
  // Each analyzed unit's summary (phase one), by file: --write-summaries writes them.
  std::vector<std::pair<std::string, UnitSummary>> Summaries;
  unsigned UnitsReanalyzed = 0;    // units the second phase analyzed again with summaries
  std::string CacheProblem;        // why the cache could not be used or written, if so
  bool MainFileOnly = false;       // MainFileScope applied: no findings in the headers
  bool Cancelled = false;          // Cancel was set: the findings are not the unit's
};

// Turns a crash while analyzing one file (a signal, a stack overflow) into that file's
// tool error; call once, before runLint.
void enableCrashRecovery();

// The rules --checks enables, in catalogue order.
std::vector<RuleId> enabledRules(const std::string &Checks);

// The files of shard K of N (1 <= K <= N) for CI matrix jobs: the files sorted, every
// N-th from the K-th. The same list always splits the same way, the shards are disjoint
// and together hold every file once.
std::vector<std::string> selectShard(std::vector<std::string> Files, unsigned K, unsigned N);

// The clang command lines File is parsed with (one per compile command): the database's
// command after ClangTool's adjusters and syncwatch's (host side, --extra-arg).
std::vector<std::string> finalCommands(const clang::tooling::CompilationDatabase &DB,
                                       const std::string &File, const LintOptions &Options);

// syncwatch's own adjustments of a command: host side, then --extra-arg.
clang::tooling::ArgumentsAdjuster lintAdjuster(const LintOptions &Options);

LintResult runLint(const clang::tooling::CompilationDatabase &DB,
                   const std::vector<std::string> &Files, const LintOptions &Options);

} // namespace syncwatch
