// Runs the enabled checks over files of a compilation database, in parallel, and
// collects Findings and per-file tool errors.
#pragma once

#include "GlobList.h"
#include "HostSideArgs.h"
#include "../core/SyncwatchCheck.h"

#include "syncwatch/report.h"

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
  CheckOptions Checking;
};

struct LintResult {
  std::vector<Finding> Findings;   // sorted, NOLINT applied
  std::vector<ToolError> Errors;
  std::vector<RuleId> RulesRun;
  unsigned FilesAnalyzed = 0;
};

// The rules --checks enables, in catalogue order.
std::vector<RuleId> enabledRules(const std::string &Checks);

LintResult runLint(const clang::tooling::CompilationDatabase &DB,
                   const std::vector<std::string> &Files, const LintOptions &Options);

} // namespace syncwatch
