#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"

namespace syncwatch {

namespace {
void writeSpan(JsonWriter &J, const SourceSpan &S) {
  J.beginObject();
  J.field("file", S.File).field("line", S.Line).field("column", S.Column);
  J.field("endLine", S.EndLine).field("endColumn", S.EndColumn);
  J.endObject();
}

void writeFixes(JsonWriter &J, std::string_view Key, const std::vector<FixIt> &Fixes) {
  J.key(Key).beginArray();
  for (const FixIt &X : Fixes) {
    J.beginObject();
    J.key("range");
    writeSpan(J, X.Where);
    J.field("replacement", X.Text);
    J.endObject();
  }
  J.endArray();
}
} // namespace

void writeCoverage(JsonWriter &J, const std::vector<CoveredCall> &Coverage) {
  J.key("coverage").beginArray();
  for (const CoveredCall &C : Coverage) {
    J.beginObject();
    J.field("api", C.Api).field("file", C.Where.File).field("line", C.Where.Line);
    if (!C.NativeFile.empty())
      J.field("nativeFile", C.NativeFile).field("nativeLine", C.NativeLine);
    J.field("count", C.Count).field("measured", C.Measured).field("totalMs", C.TotalMs).field("maxMs", C.MaxMs);
    J.endObject();
  }
  J.endArray();
}

// The JSON report: a stable, flat shape for scripts ({"findings": [...], "errors": [...]}).
void writeJson(std::ostream &Out, const Report &R) {
  JsonWriter J(Out);
  J.beginObject();
  J.field("tool", R.ToolName).field("version", R.ToolVersion);
  J.field("filesAnalyzed", R.FilesAnalyzed);
  if (!R.Process.empty())
    J.stringMap("process", R.Process);
  if (!R.Figures.empty())
    J.stringMap("figures", R.Figures);
  J.key("findings").beginArray();
  for (const Finding &F : R.Findings) {
    J.beginObject();
    J.field("rule", F.Rule).field("severity", severityName(F.Level));
    J.key("location");
    writeSpan(J, F.Where);
    if (F.ContextLine)
      J.key("context").beginObject().field("startLine", F.ContextLine).field("endLine", F.ContextEndLine).endObject();
    if (!F.Function.empty()) {
      J.key("function").beginObject().field("name", F.Function);
      if (!F.MangledFunction.empty())
        J.field("mangled", F.MangledFunction);
      J.endObject();
    }
    J.field("message", F.Message);
    J.key("notes").beginArray();
    for (const FindingNote &N : F.Notes) {
      J.beginObject();
      J.key("location");
      writeSpan(J, N.Where);
      J.field("message", N.Message);
      writeFixes(J, "suggestedFixes", N.SuggestedFixes);
      J.endObject();
    }
    J.endArray();
    writeFixes(J, "fixes", F.Fixes);
    J.stringMap("evidence", F.Evidence);
    if (!F.Fingerprint.empty())
      J.field("fingerprint", F.Fingerprint);
    if (F.Rank >= 0)
      J.field("rank", F.Rank);
    J.endObject();
  }
  J.endArray();
  if (!R.Coverage.empty())
    writeCoverage(J, R.Coverage);
  if (!R.Artifacts.empty()) {
    // The sources the report names, as read when it was written (source_hash.h).
    J.key("artifacts").beginArray();
    for (const Artifact &A : R.Artifacts) {
      J.beginObject().field("file", A.File);
      if (!A.Sha256.empty())
        J.field("sha256", A.Sha256);
      J.endObject();
    }
    J.endArray();
  }
  J.key("errors").beginArray();
  for (const ToolError &E : R.Errors) {
    J.beginObject();
    J.field("file", E.File).field("message", E.Message);
    J.endObject();
  }
  J.endArray();
  J.endObject();
}

} // namespace syncwatch
