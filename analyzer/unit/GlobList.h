// clang-tidy's glob lists ("-*,syncwatch-*"): comma-separated globs, '*' matches any
// text, a leading '-' excludes, and the last glob that matches a name decides. Used for
// --checks and for the check lists of NOLINT comments, as clang-tidy uses them.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <memory>
#include <vector>

namespace syncwatch {

class GlobList {
public:
  explicit GlobList(llvm::StringRef Globs);
  bool contains(llvm::StringRef Name) const;

private:
  struct Glob {
    bool Positive;
    std::shared_ptr<llvm::Regex> Pattern;
  };
  std::vector<Glob> Globs;
};

} // namespace syncwatch
