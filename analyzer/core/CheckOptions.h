// Check options as clang-tidy has them: each check reads its own named options through a
// view scoped to it (clang-tidy's key "syncwatch-<rule>.<Name>"), in its constructor, and
// keeps what it read so that the plugin's --dump-config writes it back. The front ends supply
// the view: the clang-tidy plugin from clang-tidy's own OptionsView, syncwatch-lint and
// syncwatch-lsp from CheckOptionValues, which lint/CheckOptionsFile.h fills from
// --check-option flags and the nearest .clang-tidy.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>

namespace syncwatch {

// Every check option of a run, by its full key ("syncwatch-pageable-async-copy.ReportUnknown").
using CheckOptionValues = std::map<std::string, std::string>;

// One check's options, by their local names ("ReportUnknown").
class CheckOptionsView {
public:
  virtual ~CheckOptionsView() = default;
  virtual std::optional<std::string> get(llvm::StringRef Name) const = 0;
  // A value the check cannot use: said where the front end says configuration errors (the
  // plugin as clang-tidy says it for its own checks); the check uses its default.
  virtual void invalid(llvm::StringRef Name, llvm::StringRef Value, llvm::StringRef Expected) const {
    (void)Name, (void)Value, (void)Expected;
  }
};

// The view of CheckOptionValues for the check named Check.
class CheckOptionsOf final : public CheckOptionsView {
public:
  CheckOptionsOf(const CheckOptionValues &Values, llvm::StringRef Check) : Values(Values), Check(Check.str()) {}
  std::optional<std::string> get(llvm::StringRef Name) const override {
    auto It = Values.find(Check + "." + Name.str());
    return It == Values.end() ? std::nullopt : std::optional<std::string>(It->second);
  }

private:
  const CheckOptionValues &Values;
  std::string Check;
};

// No option set: every check at its defaults (tests, tools that run one check).
class DefaultCheckOptions final : public CheckOptionsView {
public:
  std::optional<std::string> get(llvm::StringRef) const override { return std::nullopt; }
};

// A boolean as clang-tidy reads one: true/1/yes/on, false/0/no/off (any case); anything else
// is said through the view and gives Default.
bool readBoolOption(const CheckOptionsView &View, llvm::StringRef Name, bool Default);

} // namespace syncwatch
