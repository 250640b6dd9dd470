// NOLINT comments, honoured as clang-tidy honours them:
//   code();  // NOLINT                      silences every check on this line
//   code();  // NOLINT(syncwatch-*, foo)    silences the listed checks (globs)
//   // NOLINTNEXTLINE(...)                  the same, for the next line
//   // NOLINTBEGIN(...) ... // NOLINTEND(...)  a region; END closes the latest BEGIN
//                                           with the same check list
// An unmatched NOLINTBEGIN or NOLINTEND silences nothing (clang-tidy reports it and
// ignores the pair); so do we, and say so.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace syncwatch {

class NoLintFilter {
public:
  // True when a NOLINT directive silences Check at Line (1-based) of File's text.
  static bool suppresses(llvm::StringRef FileText, unsigned Line, llvm::StringRef Check,
                         std::vector<std::string> *Problems = nullptr);

  // The same, reading and caching files from disk.
  bool suppressed(const std::string &File, unsigned Line, llvm::StringRef Check);
  // A file's text that is not the disk's (an editor's buffer): read from here instead.
  void preload(const std::string &File, std::string Text);

private:
  std::mutex M;
  std::map<std::string, std::optional<std::string>> Cache;
};

} // namespace syncwatch
