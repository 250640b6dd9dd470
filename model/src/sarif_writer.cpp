// SARIF 2.1.0 (OASIS): what code-scanning UIs read. Validated in tests against the
// vendored official schema (model/schema/sarif-schema-2.1.0.json).
#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>

namespace syncwatch {

std::string pathToUri(const std::string &Path) {
  std::string Uri;
  if (!Path.empty() && Path[0] == '/')
    Uri = "file://";
  for (unsigned char C : Path) {
    bool Plain = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') ||
                 C == '/' || C == '-' || C == '_' || C == '.' || C == '~';
    if (Plain) {
      Uri += static_cast<char>(C);
    } else {
      static const char *Hex = "0123456789ABCDEF";
      Uri += '%';
      Uri += Hex[C >> 4];
      Uri += Hex[C & 15];
    }
  }
  return Uri;
}

std::string defaultSourceRoot(const std::string &Dir) {
  std::string D = Dir;
  while (D.size() > 1 && D.back() == '/')
    D.pop_back();
  for (std::string Up = D; !Up.empty();) {
    struct stat St;
    if (::stat((Up == "/" ? std::string("/.git") : Up + "/.git").c_str(), &St) == 0)
      return Up;
    auto Slash = Up.rfind('/');
    if (Up == "/" || Slash == std::string::npos)
      break;
    Up = Slash == 0 ? "/" : Up.substr(0, Slash);
  }
  return D;
}

namespace {

constexpr const char *kSourceRootId = "%SRCROOT%";

// A file's artifactLocation: relative to the source root when under it.
void writeArtifactLocation(JsonWriter &J, const std::string &File, const std::string &Root) {
  J.key("artifactLocation").beginObject();
  std::string Prefix = Root.empty() || Root.back() == '/' ? Root : Root + "/";
  if (!Prefix.empty() && File.size() > Prefix.size() && File.compare(0, Prefix.size(), Prefix) == 0)
    J.field("uri", pathToUri(File.substr(Prefix.size()))).field("uriBaseId", kSourceRootId);
  else
    J.field("uri", pathToUri(File));
  J.endObject();
}

std::string_view sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "warning";
}

void writeRegion(JsonWriter &J, const SourceSpan &S) {
  J.key("region").beginObject();
  J.field("startLine", S.Line);
  if (S.Column)
    J.field("startColumn", S.Column);
  if (S.EndLine >= S.Line && S.EndLine)
    J.field("endLine", S.EndLine);
  if (S.EndColumn && S.EndLine)
    J.field("endColumn", S.EndColumn);
  J.endObject();
}

void writePhysicalLocation(JsonWriter &J, const SourceSpan &S, const std::string &Root,
                           unsigned ContextLine = 0, unsigned ContextEndLine = 0) {
  J.key("physicalLocation").beginObject();
  writeArtifactLocation(J, S.File, Root);
  if (S.Line)
    writeRegion(J, S);
  if (ContextLine && ContextEndLine >= ContextLine)
    J.key("contextRegion").beginObject().field("startLine", ContextLine).field("endLine", ContextEndLine).endObject();
  J.endObject();
}

void writeRule(JsonWriter &J, const RuleInfo &Info, const std::string &DocsBaseUri) {
  J.beginObject();
  J.field("id", Info.Id).field("name", Info.Id);
  J.key("shortDescription").beginObject().field("text", Info.Summary).endObject();
  J.key("fullDescription").beginObject().field("text", Info.Help).endObject();
  std::string Page = DocsBaseUri.empty() ? "" : DocsBaseUri + std::string(Info.Id) + ".md";
  J.key("help").beginObject();
  J.field("text", Info.Help);
  J.field("markdown", std::string(Info.Help) +
                          (Page.empty() ? "" : "\n\nSee [" + std::string(Info.Id) + "](" + Page + ")."));
  J.endObject();
  if (!Page.empty())
    J.field("helpUri", Page);
  J.key("defaultConfiguration").beginObject().field("level", sarifLevel(Info.DefaultSeverity)).endObject();
  J.endObject();
}

// The rules the run describes, in RuleId order: those it ran, and any rule that produced a
// finding (a merged or confirmed report may carry one not listed as run).
std::vector<RuleId> describedRules(const Report &R) {
  std::vector<RuleId> Rules = R.RulesRun;
  for (const Finding &F : R.Findings)
    if (const RuleInfo *Info = findRule(F.Rule))
      if (std::find(Rules.begin(), Rules.end(), Info->Rule) == Rules.end())
        Rules.push_back(Info->Rule);
  std::sort(Rules.begin(), Rules.end());
  return Rules;
}

// run.tool.driver: the tool's name and version and its rules.
void writeDriver(JsonWriter &J, const Report &R, const std::vector<RuleId> &Rules) {
  J.key("tool").beginObject().key("driver").beginObject();
  J.field("name", R.ToolName);
  if (!R.ToolVersion.empty())
    J.field("version", R.ToolVersion);
  J.key("rules").beginArray();
  for (RuleId Id : Rules)
    writeRule(J, ruleInfo(Id), R.DocsBaseUri);
  J.endArray();
  J.endObject().endObject();
}

// A file that could not be analyzed is a tool execution notification, so code-scanning
// UIs show that the run was incomplete rather than clean.
void writeInvocations(JsonWriter &J, const Report &R) {
  J.key("invocations").beginArray().beginObject();
  J.field("executionSuccessful", R.Errors.empty());
  J.key("toolExecutionNotifications").beginArray();
  for (const ToolError &E : R.Errors) {
    J.beginObject();
    J.field("level", "error");
    J.key("message").beginObject().field("text", E.Message).endObject();
    if (!E.File.empty()) {
      J.key("locations").beginArray().beginObject();
      J.key("physicalLocation").beginObject();
      writeArtifactLocation(J, E.File, R.SourceRoot);
      J.endObject();
      J.endObject().endArray();
    }
    J.endObject();
  }
  J.endArray();
  J.endObject().endArray();
}

// run.properties: the runtime's coverage, process and figures (absent from a lint report).
void writeRunProperties(JsonWriter &J, const Report &R) {
  if (R.Figures.empty() && R.Process.empty() && R.Coverage.empty())
    return;
  J.key("properties").beginObject();
  if (!R.Coverage.empty())
    writeCoverage(J, R.Coverage);
  if (!R.Process.empty())
    J.stringMap("process", R.Process);
  if (!R.Figures.empty())
    J.stringMap("figures", R.Figures);
  J.endObject();
}

// run.artifacts: the files the run read, relative to the source root where under it, with
// their SHA-256.
void writeArtifacts(JsonWriter &J, const Report &R) {
  if (R.Artifacts.empty())
    return;
  J.key("artifacts").beginArray();
  for (const Artifact &A : R.Artifacts) {
    J.beginObject();
    // (an artifact's own location is "location", not "artifactLocation")
    J.key("location").beginObject();
    std::string Prefix = R.SourceRoot.empty() || R.SourceRoot.back() == '/' ? R.SourceRoot : R.SourceRoot + "/";
    if (!Prefix.empty() && A.File.size() > Prefix.size() && A.File.compare(0, Prefix.size(), Prefix) == 0)
      J.field("uri", pathToUri(A.File.substr(Prefix.size()))).field("uriBaseId", kSourceRootId);
    else
      J.field("uri", pathToUri(A.File));
    J.endObject();
    if (!A.Sha256.empty())
      J.key("hashes").beginObject().field("sha-256", A.Sha256).endObject();
    J.endObject();
  }
  J.endArray();
}

// result.locations: where the finding is, and the function it is in.
void writeResultLocation(JsonWriter &J, const Finding &F, const std::string &SourceRoot) {
  J.key("locations").beginArray().beginObject();
  writePhysicalLocation(J, F.Where, SourceRoot, F.ContextLine, F.ContextEndLine);
  if (!F.Function.empty()) {
    J.key("logicalLocations").beginArray().beginObject();
    J.field("fullyQualifiedName", F.Function);
    if (!F.MangledFunction.empty())
      J.field("decoratedName", F.MangledFunction);
    J.field("kind", "function");
    J.endObject().endArray();
  }
  J.endObject().endArray();
}

// result.relatedLocations: the finding's notes, numbered.
void writeRelatedLocations(JsonWriter &J, const Finding &F, const std::string &SourceRoot) {
  if (F.Notes.empty())
    return;
  J.key("relatedLocations").beginArray();
  int Id = 0;
  for (const FindingNote &N : F.Notes) {
    J.beginObject();
    J.field("id", Id++);
    writePhysicalLocation(J, N.Where, SourceRoot);
    J.key("message").beginObject().field("text", N.Message).endObject();
    J.endObject();
  }
  J.endArray();
}

// One fix of result.fixes: its description and its edits.
void writeFix(JsonWriter &J, const std::string &Description, const std::vector<FixIt> &Fixes,
              const std::string &SourceRoot) {
  J.beginObject();
  J.key("description").beginObject().field("text", Description).endObject();
  J.key("artifactChanges").beginArray();
  for (const FixIt &X : Fixes) {
    J.beginObject();
    writeArtifactLocation(J, X.Where.File, SourceRoot);
    J.key("replacements").beginArray().beginObject();
    J.key("deletedRegion").beginObject();
    J.field("startLine", X.Where.Line).field("startColumn", X.Where.Column);
    J.field("endLine", X.Where.EndLine).field("endColumn", X.Where.EndColumn);
    J.endObject();
    J.key("insertedContent").beginObject().field("text", X.Text).endObject();
    J.endObject().endArray();
    J.endObject();
  }
  J.endArray();
  J.endObject();
}

// result.fixes: certain fixes first, then the edits notes suggest; SARIF viewers offer both.
void writeFixes(JsonWriter &J, const Finding &F, const std::string &SourceRoot) {
  std::vector<std::pair<std::string, const std::vector<FixIt> *>> FixSets;
  if (!F.Fixes.empty())
    FixSets.push_back({"apply syncwatch's fix", &F.Fixes});
  for (const FindingNote &N : F.Notes)
    if (!N.SuggestedFixes.empty())
      FixSets.push_back({N.Message, &N.SuggestedFixes});
  if (FixSets.empty())
    return;
  J.key("fixes").beginArray();
  for (const auto &[Description, Fixes] : FixSets)
    writeFix(J, Description, *Fixes, SourceRoot);
  J.endArray();
}

// result.properties: the finding's evidence. Evidence named "syncwatch.<key>" (syncwatch
// confirm's status and measurements) is the nested properties.syncwatch object that
// code-scanning integrations read.
void writeEvidence(JsonWriter &J, const Finding &F) {
  if (F.Evidence.empty())
    return;
  J.key("properties").beginObject();
  bool Nested = false;
  for (const auto &[K, V] : F.Evidence)
    if (K.rfind("syncwatch.", 0) == 0)
      Nested = true;
    else
      J.field(K, V);
  if (Nested) {
    J.key("syncwatch").beginObject();
    for (const auto &[K, V] : F.Evidence)
      if (K.rfind("syncwatch.", 0) == 0)
        J.field(K.substr(10), V);
    J.endObject();
  }
  J.endObject();
}

// One result: the rule (and its index among the run's rules), level, message, where, the
// notes, the fixes, the rank and the evidence.
void writeResult(JsonWriter &J, const Finding &F, const std::map<std::string_view, int> &RuleIndex,
                 const std::string &SourceRoot) {
  J.beginObject();
  J.field("ruleId", F.Rule);
  if (auto It = RuleIndex.find(F.Rule); It != RuleIndex.end())
    J.field("ruleIndex", It->second);
  J.field("level", sarifLevel(F.Level));
  J.key("message").beginObject().field("text", F.Message).endObject();
  writeResultLocation(J, F, SourceRoot);
  if (!F.Fingerprint.empty())
    J.key("partialFingerprints").beginObject().field("syncwatch/v1", F.Fingerprint).endObject();
  writeRelatedLocations(J, F, SourceRoot);
  writeFixes(J, F, SourceRoot);
  if (F.Rank >= 0)
    J.field("rank", F.Rank);
  writeEvidence(J, F);
  J.endObject();
}

} // namespace

// One SARIF 2.1.0 log of one run: the run's head (source root, tool and rules,
// invocations, properties, artifacts), then its results.
void writeSarif(std::ostream &Out, const Report &R) {
  std::vector<RuleId> Rules = describedRules(R);
  std::map<std::string_view, int> RuleIndex;
  for (std::size_t I = 0; I < Rules.size(); ++I)
    RuleIndex[ruleInfo(Rules[I]).Id] = static_cast<int>(I);

  JsonWriter J(Out);
  J.beginObject();
  J.field("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  J.field("version", "2.1.0");
  J.key("runs").beginArray().beginObject();

  if (!R.SourceRoot.empty()) {
    std::string Root = R.SourceRoot.back() == '/' ? R.SourceRoot : R.SourceRoot + "/";
    J.key("originalUriBaseIds").beginObject().key(kSourceRootId).beginObject();
    J.field("uri", pathToUri(Root)).endObject().endObject();
  }
  writeDriver(J, R, Rules);
  writeInvocations(J, R);
  writeRunProperties(J, R);
  writeArtifacts(J, R);

  J.key("results").beginArray();
  for (const Finding &F : R.Findings)
    writeResult(J, F, RuleIndex, R.SourceRoot);
  J.endArray();

  J.endObject().endArray();
  J.endObject();
}

} // namespace syncwatch
