// The baseline format (syncwatch-lint --write-baseline / --baseline, docs/ci.md): the
// fingerprints of the findings a project accepted, with what each was for a person reading
// it. Read and written here, beside every other report format (no LLVM).
#pragma once

#include "syncwatch/finding.h"

#include <set>
#include <string>
#include <vector>

namespace syncwatch {

// The baseline's text for Findings, whose fingerprints are Prints (fingerprint.h), paths
// relative to Base.
std::string baselineText(const std::vector<Finding> &Findings, const std::vector<std::string> &Prints,
                         const std::string &Base);

// The fingerprints a baseline holds. False, with Error ("is not JSON: ...", "is not a
// syncwatch-lint baseline ...", "has findings[3], which is not ..."), for anything else.
bool readBaselineText(const std::string &Text, std::set<std::string> &Known, std::string &Error);

} // namespace syncwatch
