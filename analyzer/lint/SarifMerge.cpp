#include "SarifMerge.h"

#include "syncwatch/json_limits.h"
#include "syncwatch/sarif_reader.h"

#include "syncwatch/fingerprint.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace llvm;

namespace syncwatch {

Expected<Report> readSarif(const std::string &Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '" + Path + "': " + Buf.getError().message());
  std::string Text((*Buf)->getBuffer());
  Report R;
  std::string Why = jsonLimitsError(Text);
  if (Why.empty() && readSarifReport(Text, R, Why))
    return R;
  return createStringError(inconvertibleErrorCode(), "'" + Path + "' is not a syncwatch SARIF report: " + Why);
}

Expected<Report> mergeReports(std::vector<Report> Parts) {
  Report Out;
  if (Parts.empty())
    return Out;
  Out.ToolName = Parts.front().ToolName;
  Out.ToolVersion = Parts.front().ToolVersion;
  Out.DocsBaseUri = Parts.front().DocsBaseUri;
  Out.SourceRoot = Parts.front().SourceRoot;
  for (Report &P : Parts) {
    if (P.ToolName != Out.ToolName || P.ToolVersion != Out.ToolVersion)
      return createStringError(inconvertibleErrorCode(),
                               "the reports come from different tools (" + Out.ToolName + " " +
                                   Out.ToolVersion + ", " + P.ToolName + " " + P.ToolVersion + ")");
    if (Out.DocsBaseUri.empty())
      Out.DocsBaseUri = P.DocsBaseUri;
    for (RuleId Id : P.RulesRun)
      if (!llvm::is_contained(Out.RulesRun, Id))
        Out.RulesRun.push_back(Id);
    std::move(P.Findings.begin(), P.Findings.end(), std::back_inserter(Out.Findings));
    std::move(P.Errors.begin(), P.Errors.end(), std::back_inserter(Out.Errors));
    Out.FilesAnalyzed += P.FilesAnalyzed;
    std::move(P.Artifacts.begin(), P.Artifacts.end(), std::back_inserter(Out.Artifacts));
  }
  std::sort(Out.RulesRun.begin(), Out.RulesRun.end());
  sortEvidence(Out.Findings);
  sortFindings(Out.Findings);
  // Each shard numbered its own duplicate findings: the merged report numbers them as one
  // run would (fingerprint.h), from the sources as the writers read them.
  if (llvm::any_of(Out.Findings, [](const Finding &F) { return !F.Fingerprint.empty(); }))
    setFingerprints(Out);
  sortErrors(Out.Errors);
  // Shards that read one header list it once (the first hash seen: one checkout).
  std::stable_sort(Out.Artifacts.begin(), Out.Artifacts.end(),
                   [](const Artifact &A, const Artifact &B) { return A.File < B.File; });
  Out.Artifacts.erase(std::unique(Out.Artifacts.begin(), Out.Artifacts.end(),
                                  [](const Artifact &A, const Artifact &B) { return A.File == B.File; }),
                      Out.Artifacts.end());
  return Out;
}

} // namespace syncwatch
