// CI baselines: --write-baseline records today's findings; --baseline suppresses those and
// lets only new ones fail the build.
#pragma once

#include "syncwatch/report.h"

#include "llvm/Support/Error.h"

#include <set>
#include <string>

namespace syncwatch {

llvm::Error writeBaseline(const std::string &Path, const std::vector<Finding> &Findings,
                          const SourceLineReader &Lines, const std::string &Base);

llvm::Expected<std::set<std::string>> readBaseline(const std::string &Path);

// Removes the findings whose fingerprint is in Known; returns how many it removed.
unsigned applyBaseline(std::vector<Finding> &Findings, const std::set<std::string> &Known,
                       const SourceLineReader &Lines, const std::string &Base);

} // namespace syncwatch
