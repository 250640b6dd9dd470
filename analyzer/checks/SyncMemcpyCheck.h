// syncwatch-sync-memcpy: synchronous copies and memsets in code that uses streams.
// docs/rules/syncwatch-sync-memcpy.md
#pragma once

#include "../core/FunctionWork.h"
#include "../core/StreamUsage.h"
#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class SyncMemcpyCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override {
    Work.registerMatchers(Finder, Callback);
  }
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override {
    Work.observe(Result);
    Usage.observe(Result);
  }
  void onStartOfTranslationUnit() override {
    Work.reset();
    Usage.reset();
    Reported.clear();
  }
  void onEndOfTranslationUnit() override;

private:
  FunctionWork Work;
  StreamUsage Usage;
  ReportedOnce Reported;
};

} // namespace syncwatch
