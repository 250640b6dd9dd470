// Stable identities of findings, for CI baselines: a finding keeps its fingerprint when
// unrelated edits move it to another line. Fingerprint = hash of rule id, file (relative to
// the directory the tool runs in), the normalized code of the reported line (comments and
// whitespace runs dropped) and the occurrence index among findings with those same three.
#pragma once

#include "syncwatch/finding.h"
#include "syncwatch/report.h"

#include <string>
#include <vector>

namespace syncwatch {

// "  cudaFree(p);   // old buffer" -> "cudaFree(p);"
std::string normalizedCode(const std::string &Line);

// File paths in fingerprints are relative to Base when under it, so the same checkout in
// another directory (a CI runner) produces the same fingerprints.
std::string fingerprintPath(const std::string &File, const std::string &Base);

// Fingerprints of Findings (same order), reading each reported line through Lines.
// Gives each of R's findings its fingerprint, paths relative to R.SourceRoot, from the
// sources on disk.
void setFingerprints(Report &R);

std::vector<std::string> fingerprints(const std::vector<Finding> &Findings,
                                      const SourceLineReader &Lines, const std::string &Base);

} // namespace syncwatch
