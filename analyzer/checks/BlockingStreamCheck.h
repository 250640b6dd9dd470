// syncwatch-blocking-stream: a stream created blocking in a unit that issues
// legacy-default-stream work. docs/rules/syncwatch-blocking-stream.md
#pragma once

#include "../core/StreamUsage.h"
#include "../core/SyncwatchCheck.h"

namespace syncwatch {

class BlockingStreamCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Usage.reset(); }
  void onEndOfTranslationUnit() override;

private:
  std::vector<clang::FixItHint> nonBlockingFix(const StreamCreation &C) const;
  StreamUsage Usage;
};

} // namespace syncwatch
