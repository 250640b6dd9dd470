// syncwatch-sync-in-loop: explicit synchronization inside a loop that issues stream work
// every iteration.
// docs/rules/syncwatch-sync-in-loop.md
#pragma once

#include "../core/FunctionWork.h"
#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class SyncInLoopCheck : public SyncwatchCheck {
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
  void onEndOfTranslationUnit() override;

private:
  FunctionWork Work;
  ReportedOnce Reported;
};

} // namespace syncwatch
