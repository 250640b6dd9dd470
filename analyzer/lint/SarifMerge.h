// Reads syncwatch's own SARIF back into a Report, and merges the reports of shards
// (syncwatch-lint --shard=K/N) into the one an unsharded run writes, byte for byte.
#pragma once

#include "syncwatch/report.h"
#include "syncwatch/sarif_reader.h"  // uriToPath

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace syncwatch {

// The Report a SARIF file written by writeSarif() describes: writing it again with
// writeSarif() gives the same text (evidence in key order, which is how syncwatch-lint
// writes it).
llvm::Expected<Report> readSarif(const std::string &Path);

// One report from several: findings sorted and deduplicated exactly as one run does
// (sortFindings), tool errors sorted, rules united. Fails when the inputs come from
// different tools or versions.
llvm::Expected<Report> mergeReports(std::vector<Report> Parts);

// (sortFindings, sortErrors and sortEvidence live with the Finding: syncwatch/finding.h.)

} // namespace syncwatch
