// Analyzes one unit - one file of a compilation database - and returns its findings, as
// clangd's ParsedAST sits below its TUScheduler: the batch runner (lint/LintRunner: threads,
// cache, shards, cross-unit) and the language server (lsp/UnitAnalysis: one buffer at every
// edit) both analyze their units here. It owns what one unit's analysis decides: whether the
// file can be analyzed at all, the command clang runs, which precompiled prelude or preamble
// serves it, and the plain parse again when a PCH may be what failed (UnitParse.h parses).
#pragma once

#include "NoLintFilter.h"
#include "UnitRun.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace syncwatch {

class ParseHold;  // ParseHold.h

// A compilation database that can say why a file's command cannot be used as it stands
// (lint/TranslatingDatabase: an nvcc command it could not translate). The runner refuses
// such a file with that reason instead of parsing a command that would mislead.
class TranslationErrors {
public:
  virtual ~TranslationErrors() = default;
  // Why File's first unusable command cannot be used, or "".
  virtual std::string translationError(llvm::StringRef File) const = 0;
};

// ClangTool's own adjusters, then Own: the command clang really runs for an entry.
clang::tooling::ArgumentsAdjuster withClangToolAdjusters(clang::tooling::ArgumentsAdjuster Own);

// Files as real paths where they resolve, sorted, once each (SARIF's run.artifacts, the
// language server's re-analysis on save).
void realPathsSorted(std::vector<std::string> &Files);

// The prelude PCH keys of Files' commands under syncwatch's adjustments Own, for
// PreludePchCache::plan: one per file that has a single command.
std::vector<std::string> preludePchKeys(const clang::tooling::CompilationDatabase &DB,
                                        const std::vector<std::string> &Files,
                                        const clang::tooling::ArgumentsAdjuster &Own);

class UnitRunner {
public:
  // DB and NoLint are used, not owned; NoLint is shared by the units of a run (it caches
  // the files' text).
  UnitRunner(const clang::tooling::CompilationDatabase &DB, UnitOptions Options, NoLintFilter &NoLint)
      : DB(DB), Options(std::move(Options)), NoLint(NoLint) {}

  const UnitOptions &options() const { return Options; }

  // File's compile commands; empty with Problem set when it cannot be analyzed: not a
  // regular file, no command, a command's directory missing, a command not translated.
  std::vector<clang::tooling::CompileCommand> commandsOf(const std::string &File,
                                                         std::optional<ToolError> &Problem) const;

  // The clang command line a compile command is parsed with (withClangToolAdjusters).
  std::vector<std::string> finalArgs(const clang::tooling::CompileCommand &C) const;

  // Parses File (with Commands from commandsOf) and lets the checks judge it; External: the
  // other units' summaries it may use (cross-unit). With Options.Pchs, a single-command file
  // is parsed with its prelude's PCH (or an editor's buffer with its preamble's); when that
  // parse fails outside the file itself, the PCH may be the cause, and the plain parse decides.
  // With Hold, a parse that succeeds is kept alive after its first analysis (HeldParse.h).
  UnitResult analyze(const std::string &File, const std::vector<clang::tooling::CompileCommand> &Commands,
                     const SummaryIndex *External = nullptr, ParseHold *Hold = nullptr) const;

private:
  const clang::tooling::CompilationDatabase &DB;
  UnitOptions Options;
  NoLintFilter &NoLint;
};

} // namespace syncwatch
