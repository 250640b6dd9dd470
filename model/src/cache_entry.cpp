#include "syncwatch/cache_entry.h"

#include "syncwatch/json_report_reader.h"
#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"

#include <sstream>

namespace syncwatch {

std::string cacheEntryText(const CacheEntry &E) {
  std::ostringstream Deps;
  {
    JsonWriter J(Deps);
    J.beginArray();
    for (const auto &[File, Hash] : E.Deps)
      J.beginArray().value(File).value(Hash).endArray();
    J.endArray();
  }
  Report R;
  R.ToolName = "syncwatch-lint";
  R.Findings = E.Findings;
  std::ostringstream Findings;
  writeJson(Findings, R);
  return "{\"version\": " + std::to_string(kCacheEntryVersion) + ", \"deps\": " + Deps.str() +
         ", \"report\": " + Findings.str() + ", \"summary\": " + unitSummaryJson(E.Summary) + "}\n";
}

bool readCacheEntry(const std::string &Text, CacheEntry &Out, std::string &Error) {
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Error))
    return false;
  if (!Doc.isObject() || Doc["version"].kind() != JsonValue::Kind::Number || Doc["version"].number() != kCacheEntryVersion ||
      Doc["deps"].kind() != JsonValue::Kind::Array) {
    Error = "not a result-cache entry of version " + std::to_string(kCacheEntryVersion);
    return false;
  }
  Out = CacheEntry();
  for (const JsonValue &D : Doc["deps"].array()) {
    const std::vector<JsonValue> &P = D.array();
    if (P.size() != 2 || P[0].kind() != JsonValue::Kind::String || P[1].kind() != JsonValue::Kind::String) {
      Error = "a dependency that is not [file, hash]";
      return false;
    }
    Out.Deps.emplace_back(P[0].string(), P[1].string());
  }
  Report R;
  if (!readJsonReport(Doc["report"], R, Error))
    return false;
  Out.Findings = std::move(R.Findings);
  return readUnitSummaryValue(Doc["summary"], Out.Summary, Error);
}

} // namespace syncwatch
