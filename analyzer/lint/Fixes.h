// The certain fixes of findings: applied in place (--fix) or exported as the YAML that
// clang-apply-replacements reads (--export-fixes). Edits that notes only suggest are never
// applied: they need a person's judgement (see docs/rules/syncwatch-blocking-stream.md).
#pragma once

#include "syncwatch/finding.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace syncwatch {

struct FixSummary {
  unsigned Applied = 0;
  unsigned Files = 0;
};

llvm::Expected<FixSummary> applyFixes(const std::vector<Finding> &Findings);
llvm::Error exportFixes(const std::string &Path, const std::vector<Finding> &Findings);

} // namespace syncwatch
