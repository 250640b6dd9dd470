#include "BaselineFilter.h"

#include "syncwatch/baseline.h"
#include "syncwatch/file_input.h"
#include "syncwatch/file_output.h"
#include "syncwatch/fingerprint.h"
#include "syncwatch/json_limits.h"

namespace syncwatch {

llvm::Error writeBaseline(const std::string &Path, const std::vector<Finding> &Findings,
                          const SourceLineReader &Lines, const std::string &Base) {
  std::string Error;
  if (!writeFileAtomically(Path, baselineText(Findings, fingerprints(Findings, Lines, Base), Base), Error))
    return llvm::createStringError("cannot write baseline '" + Path + "': " + Error + " (any old baseline is untouched)");
  return llvm::Error::success();
}

llvm::Expected<std::set<std::string>> readBaseline(const std::string &Path) {
  // Read as every input of both halves is (file_input.h): a FIFO with no writer is refused,
  // where MemoryBuffer::getFile waited on it forever.
  std::string Text, Why;
  if (!readRegularFile(Path, Text, Why))
    return llvm::createStringError("cannot read baseline '" + Path + "': " + unreadableReason(Why));
  if (std::string Why = jsonLimitsError(Text); !Why.empty())
    return llvm::createStringError("baseline '" + Path + "' is " + Why);
  std::set<std::string> Known;
  std::string Error;
  if (!readBaselineText(Text, Known, Error))
    return llvm::createStringError("baseline '" + Path + "' " + Error);
  return Known;
}

unsigned applyBaseline(std::vector<Finding> &Findings, const std::set<std::string> &Known,
                       const SourceLineReader &Lines, const std::string &Base) {
  std::vector<std::string> Prints = fingerprints(Findings, Lines, Base);
  std::vector<Finding> Kept;
  for (std::size_t I = 0; I < Findings.size(); ++I)
    if (!Known.count(Prints[I]))
      Kept.push_back(std::move(Findings[I]));
  unsigned Removed = Findings.size() - Kept.size();
  Findings = std::move(Kept);
  return Removed;
}

} // namespace syncwatch
