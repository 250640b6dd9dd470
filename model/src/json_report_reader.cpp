#include "syncwatch/json_report_reader.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/evidence_number.h"
#include "syncwatch/json_value.h"

namespace syncwatch {

namespace {

SourceSpan readSpan(const JsonValue &V) {
  SourceSpan S;
  S.File = V["file"].string();
  S.Line = V["line"].whole<unsigned>();
  S.Column = V["column"].whole<unsigned>();
  S.EndLine = V["endLine"].whole<unsigned>();
  S.EndColumn = V["endColumn"].whole<unsigned>();
  return S;
}

std::vector<FixIt> readFixes(const JsonValue &V) {
  std::vector<FixIt> Out;
  for (const JsonValue &X : V.array())
    Out.push_back({readSpan(X["range"]), X["replacement"].string()});
  return Out;
}

// Evidence, figures and process: strings as writeJson writes them. A number there is not
// the tool's (read as "", a stall's cost became 0): refused, the member named.
bool readPairs(const JsonValue &V, const std::string &Field, std::vector<std::pair<std::string, std::string>> &Out,
               std::string &Error) {
  for (const auto &[K, X] : V.members()) {
    std::string S;
    if (Error = readStringJson(Field + "." + K, X, S); !Error.empty())
      return false;
    Out.emplace_back(K, S);
  }
  return true;
}

} // namespace

bool readCoverage(const JsonValue &V, const std::string &Field, std::vector<CoveredCall> &Out, std::string &Error) {
  const std::vector<JsonValue> &List = V.array();
  for (std::size_t I = 0; I < List.size(); ++I) {
    const JsonValue &C = List[I];
    std::string At = Field + "[" + std::to_string(I) + "].";
    CoveredCall X;
    X.Api = C["api"].string();
    X.Where.File = C["file"].string();
    X.Where.Line = C["line"].whole<unsigned>();
    X.NativeFile = C["nativeFile"].string();
    X.NativeLine = C["nativeLine"].whole<unsigned>();
    // The figures confirm judges a line by (ran, never stalled): typed and range-checked.
    Error = readCountJson(At + "count", C["count"], X.Count);
    X.Measured = X.Count;  // older reports: all measured
    if (Error.empty() && C["measured"].kind() != JsonValue::Kind::Null)
      Error = readCountJson(At + "measured", C["measured"], X.Measured);
    if (Error.empty())
      Error = readMsJson(At + "totalMs", C["totalMs"], X.TotalMs);
    if (Error.empty())
      Error = readMsJson(At + "maxMs", C["maxMs"], X.MaxMs);
    if (!Error.empty())
      return false;
    Out.push_back(std::move(X));
  }
  return true;
}

bool readJsonReport(const std::string &Text, Report &Out, std::string &Error) {
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Error))
    return false;
  return readJsonReport(Doc, Out, Error);
}

bool readJsonReport(const JsonValue &Doc, Report &Out, std::string &Error) {
  if (!Doc.isObject() || Doc["findings"].kind() != JsonValue::Kind::Array ||
      Doc["tool"].kind() != JsonValue::Kind::String) {
    Error = "not a syncwatch JSON report (no \"tool\" and \"findings\")";
    return false;
  }
  Out = Report();
  Out.ToolName = Doc["tool"].string();
  Out.ToolVersion = Doc["version"].string();
  Out.FilesAnalyzed = Doc["filesAnalyzed"].whole<unsigned>();
  if (!readPairs(Doc["process"], "process", Out.Process, Error) ||
      !readPairs(Doc["figures"], "figures", Out.Figures, Error))
    return false;
  if (Error = figuresError("figures.", Out.Figures); !Error.empty())
    return false;
  const std::vector<JsonValue> &Findings = Doc["findings"].array();
  for (std::size_t I = 0; I < Findings.size(); ++I) {
    const JsonValue &F = Findings[I];
    std::string At = "findings[" + std::to_string(I) + "]";
    Finding X;
    X.Rule = F["rule"].string();
    std::optional<Severity> Level = parseSeverity(F["severity"].string());
    X.Where = readSpan(F["location"]);
    X.Message = F["message"].string();
    X.ContextLine = F["context"]["startLine"].whole<unsigned>();
    X.ContextEndLine = F["context"]["endLine"].whole<unsigned>();
    X.Function = F["function"]["name"].string();
    X.MangledFunction = F["function"]["mangled"].string();
    if (X.Rule.empty() || !Level || X.Message.empty()) {
      Error = "a finding without a rule, a severity or a message";
      return false;
    }
    X.Level = *Level;
    for (const JsonValue &N : F["notes"].array())
      X.Notes.push_back({readSpan(N["location"]), N["message"].string(), readFixes(N["suggestedFixes"])});
    X.Fixes = readFixes(F["fixes"]);
    if (!readPairs(F["evidence"], At + ".evidence", X.Evidence, Error))
      return false;
    if (!readMeasured(X, At + ".evidence", Error))
      return false;
    X.Fingerprint = F["fingerprint"].string();
    if (F["rank"].kind() == JsonValue::Kind::Number)
      X.Rank = F["rank"].number();
    Out.Findings.push_back(std::move(X));
  }
  if (!readCoverage(Doc["coverage"], "coverage", Out.Coverage, Error))
    return false;
  for (const JsonValue &A : Doc["artifacts"].array())
    if (!A["file"].string().empty())
      Out.Artifacts.push_back({A["file"].string(), A["sha256"].string()});
  for (const JsonValue &E : Doc["errors"].array())
    Out.Errors.push_back({E["file"].string(), E["message"].string()});
  return true;
}

} // namespace syncwatch
