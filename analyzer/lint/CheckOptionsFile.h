// The one reader of check options for syncwatch-lint and syncwatch-lsp: the nearest
// .clang-tidy (its Checks and syncwatch's CheckOptions, as clang-tidy and the plugin read them)
// and syncwatch-lint's --check-option flags. Each check then reads its own options from the
// values (core/CheckOptions.h).
#pragma once

#include "../core/CheckOptions.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace syncwatch {

// The nearest .clang-tidy's Checks, kept to syncwatch's ("-*,syncwatch-*" -> as written;
// none: "syncwatch-*"), and its CheckOptions whose keys are syncwatch's checks'
// ("syncwatch-pageable-async-copy.ReportUnknown"). Error is set for a file that is not YAML.
struct TidyConfig {
  std::string Checks = "syncwatch-*";
  CheckOptionValues Options;
};
TidyConfig readNearestClangTidy(const std::string &SourcePath, std::string &Error);

// One --check-option: "syncwatch-<rule>.<Option>=<value>". False, with Error, otherwise.
bool parseCheckOption(llvm::StringRef Arg, CheckOptionValues &Out, std::string &Error);

} // namespace syncwatch
