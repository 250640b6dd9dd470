// SARIF 2.1.0 (OASIS): what code-scanning UIs read. Validated in tests against the
// vendored official schema (rules/schema/sarif-schema-2.1.0.json).
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

} // namespace

void writeSarif(std::ostream &Out, const Report &R) {
  std::vector<RuleId> Rules = R.RulesRun;
  // Rules that produced findings are always described, even if not listed as run.
  for (const Finding &F : R.Findings)
    if (const RuleInfo *Info = findRule(F.Rule))
      if (std::find(Rules.begin(), Rules.end(), Info->Rule) == Rules.end())
        Rules.push_back(Info->Rule);
  std::sort(Rules.begin(), Rules.end());
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
  J.key("tool").beginObject().key("driver").beginObject();
  J.field("name", R.ToolName);
  if (!R.ToolVersion.empty())
    J.field("version", R.ToolVersion);
  J.key("rules").beginArray();
  for (RuleId Id : Rules)
    writeRule(J, ruleInfo(Id), R.DocsBaseUri);
  J.endArray();
  J.endObject().endObject();

  // A file that could not be analyzed is a tool execution notification, so code-scanning
  // UIs show that the run was incomplete rather than clean.
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

  if (!R.Figures.empty() || !R.Process.empty() || !R.Coverage.empty()) {
    J.key("properties").beginObject();
    if (!R.Coverage.empty())
      writeCoverage(J, R.Coverage);
    if (!R.Process.empty())
      J.stringMap("process", R.Process);
    if (!R.Figures.empty())
      J.stringMap("figures", R.Figures);
    J.endObject();
  }

  if (!R.Artifacts.empty()) {
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

  J.key("results").beginArray();
  for (const Finding &F : R.Findings) {
    J.beginObject();
    J.field("ruleId", F.Rule);
    if (auto It = RuleIndex.find(F.Rule); It != RuleIndex.end())
      J.field("ruleIndex", It->second);
    J.field("level", sarifLevel(F.Level));
    J.key("message").beginObject().field("text", F.Message).endObject();
    J.key("locations").beginArray().beginObject();
    writePhysicalLocation(J, F.Where, R.SourceRoot, F.ContextLine, F.ContextEndLine);
    if (!F.Function.empty()) {
      J.key("logicalLocations").beginArray().beginObject();
      J.field("fullyQualifiedName", F.Function);
      if (!F.MangledFunction.empty())
        J.field("decoratedName", F.MangledFunction);
      J.field("kind", "function");
      J.endObject().endArray();
    }
    J.endObject().endArray();
    if (!F.Fingerprint.empty())
      J.key("partialFingerprints").beginObject().field("syncwatch/v1", F.Fingerprint).endObject();
    if (!F.Notes.empty()) {
      J.key("relatedLocations").beginArray();
      int Id = 0;
      for (const FindingNote &N : F.Notes) {
        J.beginObject();
        J.field("id", Id++);
        writePhysicalLocation(J, N.Where, R.SourceRoot);
        J.key("message").beginObject().field("text", N.Message).endObject();
        J.endObject();
      }
      J.endArray();
    }
    // Certain fixes first, then the edits notes suggest; SARIF viewers offer both.
    std::vector<std::pair<std::string, const std::vector<FixIt> *>> FixSets;
    if (!F.Fixes.empty())
      FixSets.push_back({"apply syncwatch's fix", &F.Fixes});
    for (const FindingNote &N : F.Notes)
      if (!N.SuggestedFixes.empty())
        FixSets.push_back({N.Message, &N.SuggestedFixes});
    if (!FixSets.empty()) {
      J.key("fixes").beginArray();
      for (const auto &[Description, Fixes] : FixSets) {
        J.beginObject();
        J.key("description").beginObject().field("text", Description).endObject();
        J.key("artifactChanges").beginArray();
        for (const FixIt &X : *Fixes) {
          J.beginObject();
          writeArtifactLocation(J, X.Where.File, R.SourceRoot);
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
      J.endArray();
    }
    if (F.Rank >= 0)
      J.field("rank", F.Rank);
    if (!F.Evidence.empty()) {
      // Evidence named "syncwatch.<key>" (syncwatch confirm's status and measurements) is
      // the nested properties.syncwatch object that code-scanning integrations read.
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
    J.endObject();
  }
  J.endArray();

  J.endObject().endArray();
  J.endObject();
}

} // namespace syncwatch
