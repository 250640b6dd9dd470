// A check's diagnostics as syncwatch Findings, for one unit: the place as the reports give
// it (file, line, column, range, in the file the user wrote: macros resolved, relative
// header names made absolute), NOLINT applied, the enclosing function and the lines of the
// macro invocation around the place.
#pragma once

#include "NoLintFilter.h"
#include "EnclosingFunction.h"
#include "MacroInvocations.h"
#include "../core/SyncwatchCheck.h"

#include "syncwatch/finding.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"

#include <memory>
#include <vector>

namespace syncwatch {

// The AST being analyzed: a file's several compile commands are parsed one after another,
// each a new generation (the collector's per-AST indexes are rebuilt for it).
struct CurrentUnit {
  clang::ASTContext *Ctx = nullptr;
  unsigned Generation = 0;
};

// Loc (and Range's end, when valid) as a SourceSpan; an invalid location gives an unknown one.
SourceSpan spanOf(clang::SourceLocation Loc, clang::CharSourceRange Range, const clang::SourceManager &SM,
                  const clang::LangOptions &LO);

// A clang fix-it as a report's FixIt (an insertion: an empty range at its place).
FixIt fixOf(const clang::FixItHint &H, const clang::SourceManager &SM, const clang::LangOptions &LO);

// Collects one file's Findings from the checks' diagnostics. LO and Unit are set by the
// frontend action while a parse runs (UnitParse.cpp).
class FindingCollector : public DiagnosticSink {
public:
  FindingCollector(NoLintFilter &NoLint, const clang::LangOptions *&LO, CurrentUnit &Unit)
      : NoLint(NoLint), LO(LO), Unit(Unit) {}
  void emit(const CheckDiagnostic &D, const clang::SourceManager &SM) override;
  std::vector<Finding> Findings;

private:
  NoLintFilter &NoLint;
  const clang::LangOptions *&LO;
  CurrentUnit &Unit;
  std::unique_ptr<EnclosingFunctions> Functions;  // built at the unit's first finding
  unsigned FunctionsOf = 0;
  std::unique_ptr<MacroInvocations> Macros;  // likewise
  unsigned MacrosOf = 0;
};

} // namespace syncwatch
