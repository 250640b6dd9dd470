#include "Baseline.h"

#include "syncwatch/fingerprint.h"
#include "syncwatch/json_writer.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "syncwatch/file_output.h"
#include "syncwatch/json_limits.h"

#include <fstream>
#include <sstream>

namespace syncwatch {

llvm::Error writeBaseline(const std::string &Path, const std::vector<Finding> &Findings,
                          const SourceLineReader &Lines, const std::string &Base) {
  std::ostringstream Out;
  std::vector<std::string> Prints = fingerprints(Findings, Lines, Base);
  JsonWriter J(Out);
  J.beginObject();
  J.field("version", 1).field("tool", "syncwatch-lint");
  J.key("findings").beginArray();
  for (std::size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    J.beginObject();
    J.field("fingerprint", Prints[I]).field("rule", F.Rule);
    J.field("file", fingerprintPath(F.Where.File, Base)).field("line", F.Where.Line);
    J.field("message", F.Message);
    J.endObject();
  }
  J.endArray();
  J.endObject();
  std::string Error;
  if (!writeFileAtomically(Path, Out.str(), Error))
    return llvm::createStringError("cannot write baseline '" + Path + "': " + Error + " (any old baseline is untouched)");
  return llvm::Error::success();
}

llvm::Expected<std::set<std::string>> readBaseline(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError("cannot read baseline '" + Path + "': " + Buf.getError().message());
  if (std::string Why = jsonLimitsError((*Buf)->getBuffer()); !Why.empty())
    return llvm::createStringError("baseline '" + Path + "' is " + Why);
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse((*Buf)->getBuffer());
  if (!Doc)
    return llvm::createStringError("baseline '" + Path + "' is not JSON: " +
                                   llvm::toString(Doc.takeError()));
  const llvm::json::Object *Root = Doc->getAsObject();
  const llvm::json::Array *List = Root ? Root->getArray("findings") : nullptr;
  if (!List || Root->getInteger("version").value_or(0) != 1)
    return llvm::createStringError("baseline '" + Path +
                                   "' is not a syncwatch-lint baseline (version 1, \"findings\")");
  // Every entry an object with a string fingerprint, as the docs say: an entry of another
  // type is a malformed baseline (exit 2), not one silently skipped.
  std::set<std::string> Known;
  for (std::size_t I = 0; I < List->size(); ++I) {
    const llvm::json::Object *O = (*List)[I].getAsObject();
    std::optional<llvm::StringRef> Print = O ? O->getString("fingerprint") : std::nullopt;
    if (!Print)
      return llvm::createStringError("baseline '" + Path + "': findings[" + std::to_string(I) +
                                     "] is not an object with a string \"fingerprint\"");
    Known.insert(Print->str());
  }
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
