// The result cache's entry (syncwatch-lint --cache-dir, docs/ci.md): the files a unit's
// parse read, each with a hash of its content, the unit's findings as a JSON report, and its
// cross-unit summary.
// The format lives here with the others; analyzer/lint/ResultCache keeps the keys, the
// hashing and the checks that make a restored entry safe to use.
#pragma once

#include "syncwatch/finding.h"
#include "syncwatch/unit_summary.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

// 3: the findings are a JSON report (function, fingerprint and rank included).
// 4: the unit's cross-unit summary (unit_summary.h) too.
// 5: the summary's work in flight keeps the calls it came through (via), and files that make
//    no CUDA call of their own are summarized too.
constexpr int kCacheEntryVersion = 5;

struct CacheEntry {
  std::vector<std::pair<std::string, std::string>> Deps;  // file, content hash
  std::vector<Finding> Findings;
  UnitSummary Summary;  // what the unit tells the others (syncwatch-lint's first phase)
};

std::string cacheEntryText(const CacheEntry &E);
// False, with Error, for anything that is not an entry of this version (a miss, rewritten).
bool readCacheEntry(const std::string &Text, CacheEntry &Out, std::string &Error);

} // namespace syncwatch
