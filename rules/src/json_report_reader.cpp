#include "syncwatch/json_report_reader.h"

#include "syncwatch/catalogue.h"
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

std::vector<std::pair<std::string, std::string>> readPairs(const JsonValue &V) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (const auto &[K, X] : V.members())
    Out.emplace_back(K, X.string());
  return Out;
}

} // namespace

std::vector<CoveredCall> readCoverage(const JsonValue &V) {
  std::vector<CoveredCall> Out;
  for (const JsonValue &C : V.array()) {
    CoveredCall X;
    X.Api = C["api"].string();
    X.Where.File = C["file"].string();
    X.Where.Line = C["line"].whole<unsigned>();
    X.NativeFile = C["nativeFile"].string();
    X.NativeLine = C["nativeLine"].whole<unsigned>();
    X.Count = C["count"].whole<std::uint64_t>();
    X.Measured = C["measured"].whole<std::uint64_t>(X.Count);  // older reports: all measured
    X.TotalMs = C["totalMs"].number();
    X.MaxMs = C["maxMs"].number();
    Out.push_back(std::move(X));
  }
  return Out;
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
  Out.Process = readPairs(Doc["process"]);
  Out.Figures = readPairs(Doc["figures"]);
  for (const JsonValue &F : Doc["findings"].array()) {
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
    X.Evidence = readPairs(F["evidence"]);
    readMeasured(X);
    X.Fingerprint = F["fingerprint"].string();
    if (F["rank"].kind() == JsonValue::Kind::Number)
      X.Rank = F["rank"].number();
    Out.Findings.push_back(std::move(X));
  }
  Out.Coverage = readCoverage(Doc["coverage"]);
  for (const JsonValue &A : Doc["artifacts"].array())
    if (!A["file"].string().empty())
      Out.Artifacts.push_back({A["file"].string(), A["sha256"].string()});
  for (const JsonValue &E : Doc["errors"].array())
    Out.Errors.push_back({E["file"].string(), E["message"].string()});
  return true;
}

} // namespace syncwatch
