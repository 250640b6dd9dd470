// The seam between syncwatch's checks and the two front ends that run them.
//
// A check is written once against this interface. The clang-tidy plugin wraps it in a
// ClangTidyCheck (analyzer/tidy), syncwatch-lint runs it after its own MatchFinder
// (analyzer/lint); both gather the unit's facts once (UnitFacts.h) and let each check
// judge them. We cannot derive checks from ClangTidyCheck directly: the standalone tool
// would then need clang-tidy's static libraries, which Debian's LLVM 22 does not
// ship, and the plugin gets those symbols from the clang-tidy binary instead.
#pragma once

#include "syncwatch/catalogue.h"
#include "UnitFacts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"

#include <string>
#include <vector>

namespace syncwatch {

struct CheckNote {
  clang::SourceLocation Loc;
  std::string Message;
  // Fix-its offered with this note only: shown to the user, never applied by --fix.
  std::vector<clang::FixItHint> Fixes;
  // A place in another unit (cross-unit summaries, CrossUnit.h), where Loc is invalid.
  std::string File;
  unsigned Line = 0;
};

struct CheckDiagnostic {
  RuleId Rule;
  Severity Level;
  clang::SourceLocation Loc;        // a file location (macros already resolved)
  clang::CharSourceRange Range;     // highlighted range, may be invalid
  std::string Message;
  std::vector<clang::FixItHint> Fixes; // certain fixes only
  std::vector<CheckNote> Notes;
  std::vector<std::pair<std::string, std::string>> Evidence;
};

class DiagnosticSink {
public:
  virtual ~DiagnosticSink() = default;
  virtual void emit(const CheckDiagnostic &D, const clang::SourceManager &SM) = 0;
};

// Check options. clang-tidy users set them as CheckOptions (key
// "syncwatch-<rule>.<Name>"), syncwatch-lint users as command-line flags.
struct CheckOptions {
  // syncwatch-pageable-async-copy: also report copies whose host memory's provenance is
  // unknown (as notes). Option name: ReportUnknown; flag: --report-unknown.
  bool ReportUnknown = false;
};

// A check judges the facts of a unit (UnitFacts.h) and emits what it finds: it gathers
// nothing itself, so adding one costs no walk of the AST.
class SyncwatchCheck {
public:
  explicit SyncwatchCheck(const CheckOptions &Options) : Options(Options) {}
  virtual ~SyncwatchCheck() = default;

  // Called once per unit, after the parse, with the facts of that unit.
  virtual void judge(const UnitFacts &Facts, DiagnosticSink &Sink) = 0;

protected:
  const CheckOptions Options;
};

} // namespace syncwatch
