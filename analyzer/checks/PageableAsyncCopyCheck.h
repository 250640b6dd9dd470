// syncwatch-pageable-async-copy: asynchronous copies whose host buffer is pageable memory.
// docs/rules/syncwatch-pageable-async-copy.md
#pragma once

#include "../core/SyncwatchCheck.h"

#include <set>

namespace syncwatch {

class PageableAsyncCopyCheck : public SyncwatchCheck {
public:
  // Also report copies whose host memory's provenance is unknown, as notes (syncwatch-lint's
  // --report-unknown sets it).
  static constexpr const char *ReportUnknownOption = "ReportUnknown";

  explicit PageableAsyncCopyCheck(const CheckOptionsView &Options)
      : SyncwatchCheck(Options), ReportUnknown(boolOption(Options, ReportUnknownOption, false)) {}
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;

private:
  const bool ReportUnknown;  // ReportUnknownOption

  // Reported: one finding per call and side (template instantiations repeat the call).
  void judgeCall(const clang::CallExpr &Call, const UnitFacts &Facts, clang::ASTContext &Ctx,
                 std::set<unsigned> &Reported, DiagnosticSink &Sink) const;
};

} // namespace syncwatch
