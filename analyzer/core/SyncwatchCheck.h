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
#include "CheckOptions.h"
#include "UnitFacts.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"

#include <map>
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

// A check judges the facts of a unit (UnitFacts.h) and emits what it finds: it gathers
// nothing itself, so adding one costs no walk of the AST. Its options it reads in its
// constructor, from the view its front end gives it (CheckOptions.h), with boolOption.
class SyncwatchCheck {
public:
  explicit SyncwatchCheck(const CheckOptionsView &) {}
  virtual ~SyncwatchCheck() = default;

  // Called once per unit, after the parse, with the facts of that unit.
  virtual void judge(const UnitFacts &Facts, DiagnosticSink &Sink) = 0;

  // The options this check read and the values it uses (the plugin's storeOptions).
  const std::map<std::string, std::string> &optionsRead() const { return OptionsRead; }

protected:
  bool boolOption(const CheckOptionsView &View, llvm::StringRef Name, bool Default) {
    bool V = readBoolOption(View, Name, Default);
    OptionsRead[Name.str()] = V ? "true" : "false";
    return V;
  }

private:
  std::map<std::string, std::string> OptionsRead;
};

} // namespace syncwatch
