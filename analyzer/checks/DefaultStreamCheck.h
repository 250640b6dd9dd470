// syncwatch-default-stream: work issued on the legacy default stream.
// docs/rules/syncwatch-default-stream.md
#pragma once

#include "../core/StreamUsage.h"
#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class DefaultStreamCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Usage.reset(); }
  void onEndOfTranslationUnit() override;

private:
  StreamUsage Usage;
};

} // namespace syncwatch
