// syncwatch-sync-memcpy: synchronous copies and memsets in code that uses streams.
// docs/rules/syncwatch-sync-memcpy.md
#pragma once

#include "../core/FunctionWorkCheck.h"
#include "../core/StreamUsage.h"

namespace syncwatch {

class SyncMemcpyCheck : public FunctionWorkCheck {
public:
  using FunctionWorkCheck::FunctionWorkCheck;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override {
    FunctionWorkCheck::check(Result);
    Usage.observe(Result);  // does the unit use streams at all?
  }
  void onStartOfTranslationUnit() override {
    FunctionWorkCheck::onStartOfTranslationUnit();
    Usage.reset();
  }
  void onEndOfTranslationUnit() override;

private:
  StreamUsage Usage;
};

} // namespace syncwatch
