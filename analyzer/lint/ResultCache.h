// A unit's findings kept between runs (--cache-dir), so that a CI run over an unchanged
// tree costs file hashing, not parsing.
//
// The key is everything that decides a unit's findings before it is read: the tool binary
// itself (its content, so a rebuilt syncwatch never reads an older one's results), the
// enabled checks and their options, and every compile command of the unit after
// syncwatch's adjusters, with its directory. The entry lists every file the parse read
// with a hash of its content, and is used only while all of them are unchanged: a change
// to one header re-lints exactly the units that included it. Files of the precompiled CUDA
// prelude are covered by the command's --cuda-path, not by content.
//
// Entries are written to a temporary file and renamed, so parallel workers and CI shards
// that share the directory never see half an entry. Units that did not parse are not
// cached: they are retried, and their error is reported again.
#pragma once

#include "syncwatch/cache_entry.h"
#include "syncwatch/finding.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace syncwatch {

class ResultCache {
public:
  // Dir "" disables the cache.
  explicit ResultCache(std::string Dir);

  bool enabled() const { return !Dir.empty(); }
  // The key of one unit. Commands: each compile command's final arguments and directory.
  std::string keyOf(const std::vector<std::vector<std::string>> &Commands,
                    const std::vector<std::string> &Directories, const std::string &Checks) const;
  // The findings (and cross-unit summary) stored under Key, when every file the unit read is
  // unchanged. Deps (optional) receives the files the unit read.
  std::optional<CacheEntry> lookup(const std::string &Key, std::vector<std::string> *Deps = nullptr);
  // Deps: absolute paths of every file the unit read.
  void store(const std::string &Key, const std::vector<std::string> &Deps,
             const std::vector<Finding> &Findings, const UnitSummary &Summary = {});

  unsigned hits() const { return Hits; }
  unsigned misses() const { return Misses; }
  // The first problem with the directory (unwritable, not a directory), for one warning.
  std::string problem() const;

private:
  std::string entryPath(const std::string &Key) const;
  void noteProblem(const std::string &Why);

  std::string Dir;
  std::string ToolHash;   // of the running binary
  std::atomic<unsigned> Hits{0}, Misses{0};
  mutable std::mutex Lock;
  std::string Problem;
};

} // namespace syncwatch
