#include "syncwatch/sarif_reader.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/evidence_number.h"
#include "syncwatch/json_report_reader.h"
#include "syncwatch/json_value.h"

#include <cstdio>

namespace syncwatch {

// The one uriToPath of both halves (syncwatch-lint merge used a copy of its own): %XX with
// two hex digits is decoded, anything else is kept as written.
std::string uriToPath(const std::string &Uri) {
  std::string U = Uri.rfind("file://", 0) == 0 ? Uri.substr(7) : Uri;
  auto Hex = [](char C) { return C >= '0' && C <= '9' ? C - '0' : C >= 'a' && C <= 'f' ? C - 'a' + 10 : C >= 'A' && C <= 'F' ? C - 'A' + 10 : -1; };
  std::string Out;
  for (std::size_t I = 0; I < U.size(); ++I) {
    if (U[I] == '%' && I + 2 < U.size() && Hex(U[I + 1]) >= 0 && Hex(U[I + 2]) >= 0) {
      Out += static_cast<char>(Hex(U[I + 1]) * 16 + Hex(U[I + 2]));
      I += 2;
      continue;
    }
    Out += U[I];
  }
  return Out;
}

namespace {

std::string pathOf(const JsonValue &ArtifactLocation, const std::string &Root) {
  std::string P = uriToPath(ArtifactLocation["uri"].string());
  if (!ArtifactLocation["uriBaseId"].string().empty() && !Root.empty() && !P.empty() && P[0] != '/')
    return (Root.back() == '/' ? Root : Root + "/") + P;
  return P;
}

SourceSpan spanOf(const JsonValue &PhysicalLocation, const std::string &Root) {
  SourceSpan S;
  S.File = pathOf(PhysicalLocation["artifactLocation"], Root);
  const JsonValue &R = PhysicalLocation["region"];
  S.Line = R["startLine"].whole<unsigned>();
  S.Column = R["startColumn"].whole<unsigned>();
  S.EndLine = R["endLine"].whole<unsigned>();
  S.EndColumn = R["endColumn"].whole<unsigned>();
  return S;
}

void flatten(const JsonValue &V, const std::string &Prefix, std::vector<std::pair<std::string, std::string>> &Out) {
  for (const auto &[K, X] : V.members()) {
    if (X.isObject())
      flatten(X, Prefix + K + ".", Out);
    else if (X.kind() == JsonValue::Kind::String)
      Out.emplace_back(Prefix + K, X.string());
    else if (X.kind() == JsonValue::Kind::Number) {
      char B[64];
      std::snprintf(B, sizeof B, "%.15g", X.number());
      Out.emplace_back(Prefix + K, B);
    }
  }
}

// The fix set writeSarif() gives a finding's certain fixes (sarif_writer.cpp).
constexpr const char *kCertainFixes = "apply syncwatch's fix";

std::vector<FixIt> fixesOf(const JsonValue &FixSet, const std::string &Root) {
  std::vector<FixIt> Out;
  for (const JsonValue &Change : FixSet["artifactChanges"].array()) {
    std::string File = pathOf(Change["artifactLocation"], Root);
    for (const JsonValue &Rep : Change["replacements"].array()) {
      FixIt F;
      F.Where.File = File;
      const JsonValue &Deleted = Rep["deletedRegion"];
      F.Where.Line = Deleted["startLine"].whole<unsigned>();
      F.Where.Column = Deleted["startColumn"].whole<unsigned>();
      F.Where.EndLine = Deleted["endLine"].whole<unsigned>();
      F.Where.EndColumn = Deleted["endColumn"].whole<unsigned>();
      F.Text = Rep["insertedContent"]["text"].string();
      Out.push_back(std::move(F));
    }
  }
  return Out;
}

// Where is the result in the log ("runs[0].results[3]"), for the errors that name a field.
bool readResult(const JsonValue &R, const std::string &Where, const std::string &Root, Finding &F, std::string &Error) {
  F.Rule = R["ruleId"].string();
  std::optional<Severity> Level = parseSeverity(R["level"].string());
  if (F.Rule.empty() || !Level) {
    Error = "a result without a ruleId or a level";
    return false;
  }
  F.Level = *Level;
  F.Message = R["message"]["text"].string();
  if (!R["locations"].array().empty()) {
    const JsonValue &L = R["locations"].array().front();
    F.Where = spanOf(L["physicalLocation"], Root);
    F.ContextLine = L["physicalLocation"]["contextRegion"]["startLine"].whole<unsigned>();
    F.ContextEndLine = L["physicalLocation"]["contextRegion"]["endLine"].whole<unsigned>();
    for (const JsonValue &Logical : L["logicalLocations"].array())
      if (Logical["kind"].string() == "function") {
        F.Function = Logical["fullyQualifiedName"].string();
        F.MangledFunction = Logical["decoratedName"].string();
        break;
      }
  }
  for (const JsonValue &N : R["relatedLocations"].array())
    F.Notes.push_back({spanOf(N["physicalLocation"], Root), N["message"]["text"].string(), {}});
  // Certain fixes first, then the edits the notes suggest, in the notes' order.
  const std::vector<JsonValue> &Fixes = R["fixes"].array();
  std::size_t NextNote = 0;
  for (std::size_t I = 0; I < Fixes.size(); ++I) {
    std::string Description = Fixes[I]["description"]["text"].string();
    if (I == 0 && Description == kCertainFixes) {
      F.Fixes = fixesOf(Fixes[I], Root);
      continue;
    }
    while (NextNote < F.Notes.size() && F.Notes[NextNote].Message != Description)
      ++NextNote;
    if (NextNote == F.Notes.size()) {
      Error = "a fix matches no note: '" + Description + "'";
      return false;
    }
    F.Notes[NextNote++].SuggestedFixes = fixesOf(Fixes[I], Root);
  }
  F.Fingerprint = R["partialFingerprints"]["syncwatch/v1"].string();
  if (R["rank"].kind() == JsonValue::Kind::Number)
    F.Rank = R["rank"].number();
  // The measurement's fields as syncwatch writes them, strings: flatten would take a number
  // there, which is not the tool's output (a JSON report's reader refuses one the same way).
  for (const char *K : {"count", "totalMs", "maxMs", "threads"})
    if (std::string S; R["properties"][K].kind() != JsonValue::Kind::Null &&
                       !(Error = readStringJson(Where + ".properties." + K, R["properties"][K], S)).empty())
      return false;
  flatten(R["properties"], "", F.Evidence);
  return readMeasured(F, Where + ".properties", Error);
}

} // namespace

// The one SARIF reader: syncwatch-lint merge, syncwatch merge and confirm all read with it,
// and what it reads, writeSarif writes back the same (tests/model/writers_test.cpp round-trips).
bool readSarifReport(const std::string &Text, Report &Out, std::string &Error) {
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Error))
    return false;
  const JsonValue &Runs = Doc["runs"];
  if (Doc["version"].string() != "2.1.0" || Runs.array().size() != 1) {
    Error = "not a SARIF 2.1.0 log with exactly one run";
    return false;
  }
  const JsonValue &Run = Runs.array().front();
  // SARIF requires runs[].results; a log without it (or with null or a string there) is a
  // damaged one, not a clean run: counting it as 0 results let confirm's gate pass.
  if (Run["results"].kind() != JsonValue::Kind::Array) {
    Error = "runs[0].results is missing or not an array (a damaged SARIF log)";
    return false;
  }
  Out = Report();
  const JsonValue &Driver = Run["tool"]["driver"];
  Out.ToolName = Driver["name"].string();
  if (Out.ToolName.empty()) {
    Error = "no tool.driver.name";
    return false;
  }
  Out.ToolVersion = Driver["version"].string();
  for (const JsonValue &Rule : Driver["rules"].array()) {
    const std::string &Id = Rule["id"].string();
    const RuleInfo *Info = findRule(Id);
    if (!Info) {
      Error = "unknown rule '" + Id + "'";
      return false;
    }
    Out.RulesRun.push_back(Info->Rule);
    const std::string &Help = Rule["helpUri"].string();
    std::string Page = Id + ".md";
    if (Help.size() > Page.size() && Help.compare(Help.size() - Page.size(), Page.size(), Page) == 0)
      Out.DocsBaseUri = Help.substr(0, Help.size() - Page.size());
  }
  Out.SourceRoot = uriToPath(Run["originalUriBaseIds"]["%SRCROOT%"]["uri"].string());
  while (Out.SourceRoot.size() > 1 && Out.SourceRoot.back() == '/')
    Out.SourceRoot.pop_back();
  for (const JsonValue &Inv : Run["invocations"].array())
    for (const JsonValue &Note : Inv["toolExecutionNotifications"].array()) {
      const std::vector<JsonValue> &Locations = Note["locations"].array();
      Out.Errors.push_back({Locations.empty() ? "" : pathOf(Locations.front()["physicalLocation"]["artifactLocation"], Out.SourceRoot),
                            Note["message"]["text"].string()});
    }
  const JsonValue &Props = Run["properties"];
  for (const auto &[K, V] : Props["process"].members())
    Out.Process.emplace_back(K, V.string());
  // Figures are strings as writeSarif writes them, and the times among them times.
  for (const auto &[K, V] : Props["figures"].members()) {
    std::string S;
    if (!(Error = readStringJson("runs[0].properties.figures." + K, V, S)).empty())
      return false;
    Out.Figures.emplace_back(K, S);
  }
  if (!(Error = figuresError("runs[0].properties.figures.", Out.Figures)).empty())
    return false;
  if (!readCoverage(Props["coverage"], "runs[0].properties.coverage", Out.Coverage, Error))
    return false;
  for (const JsonValue &A : Run["artifacts"].array())
    if (std::string File = pathOf(A["location"], Out.SourceRoot); !File.empty())
      Out.Artifacts.push_back({File, A["hashes"]["sha-256"].string()});
  const std::vector<JsonValue> &Results = Run["results"].array();
  for (std::size_t I = 0; I < Results.size(); ++I) {
    const JsonValue &R = Results[I];
    Finding F;
    if (!R.isObject()) {
      Error = "a result is not an object";
      return false;
    }
    if (!readResult(R, "runs[0].results[" + std::to_string(I) + "]", Out.SourceRoot, F, Error))
      return false;
    Out.Findings.push_back(std::move(F));
  }
  return true;
}

} // namespace syncwatch
