// syncwatch-pageable-async-copy: asynchronous copies whose host buffer is pageable memory.
// docs/rules/syncwatch-pageable-async-copy.md
#pragma once

#include "../core/HostMemoryProvenance.h"
#include "../core/SyncwatchCheck.h"

#include <memory>

#include <set>

namespace syncwatch {

class PageableAsyncCopyCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override {
    Reported.clear();
    Memory.reset();
  }

private:
  std::set<unsigned> Reported;
  // Per unit: it indexes the unit's call sites once, on first need.
  std::unique_ptr<HostMemoryProvenance> Memory;
};

} // namespace syncwatch
