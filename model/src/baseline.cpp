#include "syncwatch/baseline.h"

#include "syncwatch/fingerprint.h"
#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"

#include <sstream>

namespace syncwatch {

std::string baselineText(const std::vector<Finding> &Findings, const std::vector<std::string> &Prints,
                         const std::string &Base) {
  std::ostringstream Out;
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
  return Out.str();
}

bool readBaselineText(const std::string &Text, std::set<std::string> &Known, std::string &Error) {
  JsonValue Doc;
  std::string Why;
  if (!JsonValue::parse(Text, Doc, Why)) {
    Error = "is not JSON: " + Why;
    return false;
  }
  const JsonValue &List = Doc["findings"];
  if (!Doc.isObject() || List.kind() != JsonValue::Kind::Array || Doc["version"].kind() != JsonValue::Kind::Number ||
      Doc["version"].number() != 1) {
    Error = "is not a syncwatch-lint baseline (version 1, \"findings\")";
    return false;
  }
  // Every entry an object with a string fingerprint, as the docs say: an entry of another
  // type is a malformed baseline (exit 2), not one silently skipped.
  for (std::size_t I = 0; I < List.array().size(); ++I) {
    const JsonValue &E = List.array()[I];
    if (!E.isObject() || E["fingerprint"].kind() != JsonValue::Kind::String) {
      Error = "has findings[" + std::to_string(I) + "], which is not an object with a string \"fingerprint\"";
      return false;
    }
    Known.insert(E["fingerprint"].string());
  }
  return true;
}

} // namespace syncwatch
