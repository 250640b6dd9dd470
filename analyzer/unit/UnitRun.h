// What one unit's analysis is given (UnitOptions) and gives back (UnitResult): the words
// UnitRunner, the batch runner (lint/LintRunner) and the language server (lsp/) share.
#pragma once

#include "../core/CheckOptions.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/finding.h"
#include "syncwatch/unit_summary.h"

#include "clang/Tooling/ArgumentsAdjusters.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

class PreludePchCache;  // PreludePch.h

// A unit's slice of the other units' summaries known when its parse ends (syncwatch-lint's
// first phase, KnownSummaries.h): the index it is judged with and its canonical text.
struct KnownSlice {
  SummaryIndex Index;
  std::string Text;
};
// The slice for a unit of this summary; nullopt when it is empty.
using SliceOfKnown = std::function<std::optional<KnownSlice>(const UnitSummary &)>;

struct UnitOptions {
  std::vector<RuleId> Rules;   // the checks to run, in catalogue order
  CheckOptionValues Checking;  // each check reads its own (core/CheckOptions.h)
  // syncwatch's own adjustments of each command (host side, --extra-arg), applied after
  // ClangTool's own (withClangToolAdjusters).
  clang::tooling::ArgumentsAdjuster Adjust;
  bool Summarize = false;      // also give the unit's summary (cross-unit, CrossUnit.h)
  // Parse on the calling thread (without the large parse stack): no thread could start.
  bool ParseOnCallingThread = false;
  // Precompiled CUDA preludes (PreludePch.h); null: none.
  PreludePchCache *Pchs = nullptr;
  // Files whose text is not the disk's (an editor's unsaved buffers, syncwatch-lsp): absolute
  // path -> contents, laid over the real file system.
  std::vector<std::pair<std::string, std::string>> Unsaved;
  // An editor's buffer (in Unsaved) gets its own preamble precompiled with the prelude, and
  // reused while its leading #includes stay as they are (PreludePchCache::preamblePchFor).
  bool BufferPreamble = false;
  // With that preamble precompiled: analyze only the declarations parsed after it - the
  // file's own code - as clangd scopes clang-tidy, not every declaration of the headers at
  // each edit. The headers' findings are then not reported (UnitResult::MainFileOnly). A run
  // that builds the preamble anew analyzes the whole unit anyway. Off: the whole unit.
  bool MainFileScope = false;
  // Stops the parse early when set (syncwatch-lsp: an edit came for the buffer being
  // analyzed): checked between the parse's top-level declarations and before the checks.
  // The result then says Cancelled and holds no findings.
  const std::atomic<bool> *Cancel = nullptr;
  // With Summarize, a unit parsed without summaries (the first phase) is judged a second
  // time at once, its AST still alive, with its slice of the summaries known by then: a
  // unit whose callees' and callers' units were analyzed before it needs no second parse.
  // The result is that judgement (UnitResult::SliceUsed; the plain one in Plain).
  SliceOfKnown KnownSlices;
};

// What the checks found and the unit tells the others, from one judgement of a parse.
struct Judgement {
  std::vector<Finding> Findings;
  UnitSummary Summary;
};

struct UnitResult {
  std::vector<Finding> Findings;   // NOLINT applied, in the order the checks gave them
  UnitSummary Summary;             // what the unit tells the others (UnitOptions::Summarize)
  std::vector<std::string> Deps;   // every file the parse read (for the result cache)
  std::optional<ToolError> Error;  // could not be analyzed: why
  bool Crashed = false;
  bool ErrorInMainFile = false;    // the first compiler error is in the file itself
  bool MainFileOnly = false;       // only the declarations after the preamble were analyzed
  bool Cancelled = false;          // UnitOptions::Cancel stopped it: no result
  double Seconds = 0;              // set by the caller that timed it
  // Judged again with the summaries known at the parse's end (UnitOptions::KnownSlices):
  // the slice's text, and the judgement without it (the result cache's first-phase entry).
  std::string SliceUsed;
  std::optional<Judgement> Plain;
};

} // namespace syncwatch
