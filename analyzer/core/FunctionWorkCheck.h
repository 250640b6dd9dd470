// Base of the checks that judge calls by what their function does around them
// (implicit-sync, sync-in-loop, sync-memcpy): it collects the unit's FunctionWork and
// leaves the judgement to onEndOfTranslationUnit.
#pragma once

#include "FunctionWork.h"
#include "SyncwatchCheck.h"

namespace syncwatch {

class FunctionWorkCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override {
    Work.registerMatchers(Finder, Callback);
  }
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override {
    Work.observe(Result);
  }
  void onStartOfTranslationUnit() override {
    Work.reset();
    Reported.clear();
  }

protected:
  FunctionWork Work;
  ReportedOnce Reported;  // template instantiations repeat a function's calls
};

} // namespace syncwatch
