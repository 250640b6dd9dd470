#include "SarifMerge.h"

#include "syncwatch/json_limits.h"
#include "syncwatch/sarif_reader.h"

#include "syncwatch/fingerprint.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace syncwatch {
namespace {

// The fix set writeSarif() gives a finding's certain fixes.
constexpr StringRef CertainFixes = "apply syncwatch's fix";

Error malformed(const std::string &Path, const Twine &What) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + Path + "' is not a syncwatch SARIF report: " + What);
}

unsigned number(const json::Object *O, StringRef Key) {
  if (!O)
    return 0;
  if (std::optional<int64_t> N = O->getInteger(Key); N && *N > 0)
    return static_cast<unsigned>(*N);
  return 0;
}

std::string text(const json::Object *O, StringRef Key) {
  if (!O)
    return "";
  if (const json::Object *M = O->getObject(Key))
    if (std::optional<StringRef> T = M->getString("text"))
      return T->str();
  return "";
}

// Root: the run's %SRCROOT% (originalUriBaseIds), against which relative URIs resolve.
std::string uriOf(const json::Object *ArtifactLocation, const std::string &Root) {
  if (!ArtifactLocation)
    return "";
  std::optional<StringRef> U = ArtifactLocation->getString("uri");
  if (!U)
    return "";
  std::optional<StringRef> Base = ArtifactLocation->getString("uriBaseId");
  if (Base && *Base == "%SRCROOT%" && !Root.empty())
    return (Root.back() == '/' ? Root : Root + "/") + uriToPath(U->str());
  return uriToPath(U->str());
}

SourceSpan spanOf(const json::Object *PhysicalLocation, const std::string &Root) {
  SourceSpan S;
  if (!PhysicalLocation)
    return S;
  S.File = uriOf(PhysicalLocation->getObject("artifactLocation"), Root);
  const json::Object *Region = PhysicalLocation->getObject("region");
  S.Line = number(Region, "startLine");
  S.Column = number(Region, "startColumn");
  S.EndLine = number(Region, "endLine");
  S.EndColumn = number(Region, "endColumn");
  return S;
}

const json::Object *firstPhysicalLocation(const json::Object *O) {
  if (!O)
    return nullptr;
  const json::Array *Locations = O->getArray("locations");
  if (!Locations || Locations->empty() || !(*Locations)[0].getAsObject())
    return nullptr;
  return (*Locations)[0].getAsObject()->getObject("physicalLocation");
}

std::vector<FixIt> fixesOf(const json::Object &FixSet, const std::string &Root) {
  std::vector<FixIt> Out;
  const json::Array *Changes = FixSet.getArray("artifactChanges");
  if (!Changes)
    return Out;
  for (const json::Value &C : *Changes) {
    const json::Object *Change = C.getAsObject();
    if (!Change)
      continue;
    std::string File = uriOf(Change->getObject("artifactLocation"), Root);
    const json::Array *Replacements = Change->getArray("replacements");
    if (!Replacements)
      continue;
    for (const json::Value &R : *Replacements) {
      const json::Object *Rep = R.getAsObject();
      if (!Rep)
        continue;
      FixIt F;
      F.Where.File = File;
      const json::Object *Deleted = Rep->getObject("deletedRegion");
      F.Where.Line = number(Deleted, "startLine");
      F.Where.Column = number(Deleted, "startColumn");
      F.Where.EndLine = number(Deleted, "endLine");
      F.Where.EndColumn = number(Deleted, "endColumn");
      F.Text = text(Rep, "insertedContent");
      Out.push_back(std::move(F));
    }
  }
  return Out;
}

Expected<Finding> findingOf(const json::Object &R, const std::string &Path, const std::string &Root) {
  Finding F;
  std::optional<StringRef> Rule = R.getString("ruleId");
  std::optional<StringRef> Level = R.getString("level");
  if (!Rule || !Level)
    return malformed(Path, "a result has no ruleId or level");
  F.Rule = Rule->str();
  std::optional<Severity> S = parseSeverity(std::string_view(Level->data(), Level->size()));
  if (!S)
    return malformed(Path, "unknown level '" + *Level + "'");
  F.Level = *S;
  F.Message = text(&R, "message");
  F.Where = spanOf(firstPhysicalLocation(&R), Root);
  if (const json::Array *Locations = R.getArray("locations"); Locations && !Locations->empty())
    if (const json::Object *L = (*Locations)[0].getAsObject())
      if (const json::Array *Logical = L->getArray("logicalLocations"))
        for (const json::Value &V : *Logical)
          if (const json::Object *LL = V.getAsObject(); LL && LL->getString("kind") == "function") {
            if (std::optional<StringRef> N = LL->getString("fullyQualifiedName"))
              F.Function = N->str();
            if (std::optional<StringRef> D = LL->getString("decoratedName"))
              F.MangledFunction = D->str();
            break;
          }
  if (const json::Object *Prints = R.getObject("partialFingerprints"))
    if (std::optional<StringRef> P = Prints->getString("syncwatch/v1"))
      F.Fingerprint = P->str();
  if (const json::Array *Related = R.getArray("relatedLocations"))
    for (const json::Value &V : *Related)
      if (const json::Object *N = V.getAsObject())
        F.Notes.push_back(FindingNote{spanOf(N->getObject("physicalLocation"), Root), text(N, "message"), {}});
  if (const json::Array *Fixes = R.getArray("fixes")) {
    std::size_t NextNote = 0;
    for (std::size_t I = 0; I < Fixes->size(); ++I) {
      const json::Object *Set = (*Fixes)[I].getAsObject();
      if (!Set)
        continue;
      std::string Description = text(Set, "description");
      if (I == 0 && Description == CertainFixes) {
        F.Fixes = fixesOf(*Set, Root);
        continue;
      }
      // Suggested edits follow in the order of the notes that carry them.
      while (NextNote < F.Notes.size() && F.Notes[NextNote].Message != Description)
        ++NextNote;
      if (NextNote == F.Notes.size())
        return malformed(Path, "a fix matches no note: '" + Description + "'");
      F.Notes[NextNote++].SuggestedFixes = fixesOf(*Set, Root);
    }
  }
  if (const json::Object *Props = R.getObject("properties"))
    for (const auto &[K, V] : *Props)
      if (std::optional<StringRef> Str = V.getAsString())
        F.Evidence.emplace_back(K.str(), Str->str());
  std::sort(F.Evidence.begin(), F.Evidence.end());
  return F;
}

bool fullLess(const Finding &A, const Finding &B);

bool spanLess(const SourceSpan &A, const SourceSpan &B) {
  return std::tie(A.File, A.Line, A.Column, A.EndLine, A.EndColumn) <
         std::tie(B.File, B.Line, B.Column, B.EndLine, B.EndColumn);
}

bool fixesLess(const std::vector<FixIt> &A, const std::vector<FixIt> &B) {
  return std::lexicographical_compare(A.begin(), A.end(), B.begin(), B.end(),
                                      [](const FixIt &X, const FixIt &Y) {
                                        if (spanLess(X.Where, Y.Where))
                                          return true;
                                        if (spanLess(Y.Where, X.Where))
                                          return false;
                                        return X.Text < Y.Text;
                                      });
}

bool notesLess(const std::vector<FindingNote> &A, const std::vector<FindingNote> &B) {
  return std::lexicographical_compare(
      A.begin(), A.end(), B.begin(), B.end(), [](const FindingNote &X, const FindingNote &Y) {
        if (spanLess(X.Where, Y.Where))
          return true;
        if (spanLess(Y.Where, X.Where))
          return false;
        if (X.Message != Y.Message)
          return X.Message < Y.Message;
        return fixesLess(X.SuggestedFixes, Y.SuggestedFixes);
      });
}

bool fullLess(const Finding &A, const Finding &B) {
  if (findingLess(A, B))
    return true;
  if (findingLess(B, A))
    return false;
  if (A.Level != B.Level)
    return A.Level < B.Level;
  if (spanLess(A.Where, B.Where))
    return true;
  if (spanLess(B.Where, A.Where))
    return false;
  if (notesLess(A.Notes, B.Notes))
    return true;
  if (notesLess(B.Notes, A.Notes))
    return false;
  if (fixesLess(A.Fixes, B.Fixes))
    return true;
  if (fixesLess(B.Fixes, A.Fixes))
    return false;
  return A.Evidence < B.Evidence;
}

} // namespace

void sortEvidence(std::vector<Finding> &Findings) {
  for (Finding &F : Findings)
    std::stable_sort(F.Evidence.begin(), F.Evidence.end(),
                     [](const auto &A, const auto &B) { return A.first < B.first; });
}

void sortFindings(std::vector<Finding> &Findings) {
  std::sort(Findings.begin(), Findings.end(), fullLess);
  Findings.erase(std::unique(Findings.begin(), Findings.end(),
                             [](const Finding &A, const Finding &B) {
                               return !findingLess(A, B) && !findingLess(B, A);
                             }),
                 Findings.end());
}

void sortErrors(std::vector<ToolError> &Errors) {
  std::sort(Errors.begin(), Errors.end(), [](const ToolError &A, const ToolError &B) {
    return std::tie(A.File, A.Message) < std::tie(B.File, B.Message);
  });
  Errors.erase(std::unique(Errors.begin(), Errors.end(),
                           [](const ToolError &A, const ToolError &B) {
                             return A.File == B.File && A.Message == B.Message;
                           }),
               Errors.end());
}

Expected<Report> readSarif(const std::string &Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '" + Path + "': " + Buf.getError().message());
  if (std::string Why = jsonLimitsError((*Buf)->getBuffer()); !Why.empty())
    return malformed(Path, Why);
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  if (!Doc)
    return malformed(Path, toString(Doc.takeError()));
  const json::Object *Root = Doc->getAsObject();
  const json::Array *Runs = Root ? Root->getArray("runs") : nullptr;
  if (!Runs || Runs->size() != 1 || !(*Runs)[0].getAsObject())
    return malformed(Path, "expected exactly one run");
  const json::Object &Run = *(*Runs)[0].getAsObject();

  Report R;
  if (const json::Object *Bases = Run.getObject("originalUriBaseIds"))
    if (const json::Object *SrcRoot = Bases->getObject("%SRCROOT%"))
      if (std::optional<StringRef> U = SrcRoot->getString("uri")) {
        R.SourceRoot = uriToPath(U->str());
        while (R.SourceRoot.size() > 1 && R.SourceRoot.back() == '/')
          R.SourceRoot.pop_back();
      }
  const json::Object *Tool = Run.getObject("tool");
  const json::Object *Driver = Tool ? Tool->getObject("driver") : nullptr;
  if (!Driver || !Driver->getString("name"))
    return malformed(Path, "no tool.driver.name");
  R.ToolName = Driver->getString("name")->str();
  if (std::optional<StringRef> V = Driver->getString("version"))
    R.ToolVersion = V->str();
  if (const json::Array *Rules = Driver->getArray("rules")) {
    for (const json::Value &V : *Rules) {
      const json::Object *Rule = V.getAsObject();
      std::optional<StringRef> Id = Rule ? Rule->getString("id") : std::nullopt;
      const RuleInfo *Info = Id ? findRule(std::string_view(Id->data(), Id->size())) : nullptr;
      if (!Info)
        return malformed(Path, "unknown rule");
      R.RulesRun.push_back(Info->Rule);
      if (std::optional<StringRef> Help = Rule->getString("helpUri")) {
        StringRef Base = *Help;
        if (Base.consume_back((*Id + ".md").str()))
          R.DocsBaseUri = Base.str();
      }
    }
  }
  if (const json::Array *Invocations = Run.getArray("invocations"))
    for (const json::Value &V : *Invocations)
      if (const json::Object *Inv = V.getAsObject())
        if (const json::Array *Notes = Inv->getArray("toolExecutionNotifications"))
          for (const json::Value &N : *Notes)
            if (const json::Object *Note = N.getAsObject()) {
              const json::Object *Loc = firstPhysicalLocation(Note);
              R.Errors.push_back(
                  ToolError{Loc ? uriOf(Loc->getObject("artifactLocation"), R.SourceRoot) : "", text(Note, "message")});
            }
  if (const json::Array *Artifacts = Run.getArray("artifacts"))
    for (const json::Value &V : *Artifacts)
      if (const json::Object *A = V.getAsObject()) {
        std::string File = uriOf(A->getObject("location"), R.SourceRoot);
        const json::Object *Hashes = A->getObject("hashes");
        std::optional<StringRef> Sha = Hashes ? Hashes->getString("sha-256") : std::nullopt;
        if (!File.empty())
          R.Artifacts.push_back({File, Sha ? Sha->str() : ""});
      }
  const json::Array *Results = Run.getArray("results");
  if (!Results)  // required by SARIF: without it the log is damaged, not clean
    return malformed(Path, "runs[0].results is missing or not an array");
  for (const json::Value &V : *Results) {
    const json::Object *Result = V.getAsObject();
    if (!Result)
      return malformed(Path, "a result is not an object");
    Expected<Finding> F = findingOf(*Result, Path, R.SourceRoot);
    if (!F)
      return F.takeError();
    R.Findings.push_back(std::move(*F));
  }
  return R;
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
