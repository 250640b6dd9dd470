// The seam between syncwatch's checks and the two front ends that run them.
//
// A check is written once against this interface. The clang-tidy plugin wraps it in a
// ClangTidyCheck (analyzer/tidy), syncwatch-lint runs it under its own MatchFinder
// (analyzer/lint). We cannot derive checks from ClangTidyCheck directly: the standalone
// tool would then need clang-tidy's static libraries, which Debian's LLVM 22 does not
// ship, and the plugin gets those symbols from the clang-tidy binary instead.
#pragma once

#include "syncwatch/catalogue.h"

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

class SyncwatchCheck {
public:
  SyncwatchCheck(DiagnosticSink &Sink, const CheckOptions &Options)
      : Options(Options), Sink(Sink) {}
  virtual ~SyncwatchCheck() = default;

  // Register matchers with Callback as their MatchCallback (the front end's adapter,
  // which forwards matches to check()).
  virtual void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                                clang::ast_matchers::MatchFinder::MatchCallback *Callback) = 0;
  virtual void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) = 0;
  virtual void onStartOfTranslationUnit() {}
  // Checks that judge a whole translation unit (is there other stream use? legacy work?)
  // decide and emit here.
  virtual void onEndOfTranslationUnit() {}

protected:
  void emit(const CheckDiagnostic &D, const clang::SourceManager &SM) { Sink.emit(D, SM); }
  const CheckOptions Options;

private:
  DiagnosticSink &Sink;
};

} // namespace syncwatch
