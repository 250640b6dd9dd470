// The batch runner of syncwatch-lint: the enabled checks over files of a compilation
// database, in parallel (threads), with the result cache, shards and the cross-unit phase;
// Findings and per-file tool errors collected and sorted. Each unit is analyzed by a
// UnitRunner (unit/UnitRunner.h), as the language server's are.
#pragma once

#include "HostSideArgs.h"
#include "../core/SyncwatchCheck.h"

#include "syncwatch/report.h"
#include "syncwatch/unit_summary.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <string>
#include <vector>

namespace syncwatch {

struct LintOptions {
  std::string Checks = "syncwatch-*";
  unsigned Jobs = 0;        // 0: one per core
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
  // The resident memory (MiB) under which the first phase keeps units' parses alive for the
  // second, which then judges them again instead of parsing them again (unit/HeldParse.h);
  // 0: parse them again (--cross-unit-memory).
  std::size_t KeepParsesMiB = 2048;
  // Judge each first-phase unit a second time at the end of its parse, with the summaries
  // known by then (lint/KnownSummaries.h), taking likely callees first (lint/UnitOrder.h):
  // the second phase then parses again only the units whose slice changed after that.
  // Off: phase one judges each unit alone, in the database's order (benchmarks, tests).
  bool JudgeWithKnown = true;
  // Summaries of units this run does not analyze: other shards' --write-summaries files.
  std::vector<std::pair<std::string, UnitSummary>> ImportedSummaries;
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
  // The units the second phase analyzed again with summaries, sorted (where its time went).
  std::vector<std::string> ReanalyzedFiles;
  unsigned UnitsKept = 0;          // first-phase parses kept alive for the second phase
  unsigned UnitsJudgedAgain = 0;   // second analyses served by a kept parse (no new parse)
  unsigned UnitsJudgedWithKnown = 0;  // first-phase units judged again with the known summaries
  std::string CacheProblem;        // why the cache could not be used or written, if so
};

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
