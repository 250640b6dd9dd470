#include "syncwatch/finding.h"

#include "syncwatch/evidence_number.h"
#include "syncwatch/thread_costs.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace syncwatch {

bool findingLess(const Finding &A, const Finding &B) {
  return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Rule, A.Message) <
         std::tie(B.Where.File, B.Where.Line, B.Where.Column, B.Rule, B.Message);
}

std::string qualifiedFunctionName(const std::string &Demangled) {
  // "(anonymous namespace)" is part of the name, not a parameter list or a return type's
  // end: it stands as one character while the rest is cut.
  static const std::string Anonymous = "(anonymous namespace)";
  std::string Name = Demangled;
  for (std::size_t At; (At = Name.find(Anonymous)) != std::string::npos;)
    Name.replace(At, Anonymous.size(), "\x01");
  if (auto Plus = Name.find("+0x"); Plus != std::string::npos)
    Name.resize(Plus);
  if (auto Paren = Name.find('('); Paren != std::string::npos)
    Name.resize(Paren);
  std::string Out;
  int Depth = 0;
  for (char C : Name) {
    if (C == '<')
      ++Depth;
    else if (C == '>' && Depth > 0)
      --Depth;
    else if (Depth == 0)
      Out += C;
  }
  // A template's demangled name starts with its return type: "void ns::f".
  if (auto Space = Out.rfind(' '); Space != std::string::npos)
    Out = Out.substr(Space + 1);
  for (std::size_t At; (At = Out.find('\x01')) != std::string::npos;)
    Out.replace(At, 1, Anonymous);
  return Out;
}

const std::string *evidenceOf(const Finding &F, const std::string &Key) {
  for (const auto &[K, V] : F.Evidence)
    if (K == Key)
      return &V;
  return nullptr;
}

void setEvidence(Finding &F, const std::string &Key, const std::string &Value) {
  for (auto &[K, V] : F.Evidence)
    if (K == Key) {
      V = Value;
      return;
    }
  F.Evidence.emplace_back(Key, Value);
}

void setMeasured(Finding &F, const Measurement &M) {
  F.Measured = M;
  if (M.Count > 0)
    setEvidence(F, "count", std::to_string(M.Count));
  setEvidence(F, "totalMs", std::to_string(M.TotalMs));  // report.h's evidenceNumber
  setEvidence(F, "maxMs", std::to_string(M.MaxMs));
}

bool readMeasured(Finding &F, const std::string &Field, std::string &Error) {
  const std::string *Total = evidenceOf(F, "totalMs");
  if (!Total)
    return true;
  Measurement M;
  // Typed and range-checked (evidence_number.h): a negative or non-finite cost made every
  // stall not-observed in confirm and wrapped through uint64_t in merge.
  Error = readMsText(Field + ".totalMs", *Total, M.TotalMs);
  if (const std::string *Max = evidenceOf(F, "maxMs"); Max && Error.empty())
    Error = readMsText(Field + ".maxMs", *Max, M.MaxMs);
  // An empty count is the engine's own: the place setMeasured leaves as it was when
  // nothing was counted.
  if (const std::string *C = evidenceOf(F, "count"); C && !C->empty() && Error.empty())
    Error = readCountText(Field + ".count", *C, M.Count);
  if (const std::string *T = evidenceOf(F, "threads"); T && Error.empty())
    Error = threadCostsError(Field + ".threads", *T);
  if (!Error.empty())
    return false;
  F.Measured = M;
  return true;
}

namespace {

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
  // One place, one rule, two severities: a header's code judged in a unit that uses streams
  // (a warning: it serializes with them) and in one that does not (a note). AMGX's
  // amgx_timer.h:370 came out as both; the code runs in both programs, so the warning
  // stands for the place and the note goes.
  auto SamePlace = [](const Finding &A, const Finding &B) {
    return std::tie(A.Where.File, A.Where.Line, A.Where.Column, A.Rule) ==
           std::tie(B.Where.File, B.Where.Line, B.Where.Column, B.Rule);
  };
  std::vector<Finding> Kept;
  Kept.reserve(Findings.size());
  for (std::size_t Begin = 0, End; Begin < Findings.size(); Begin = End) {
    Severity Top = Findings[Begin].Level;
    for (End = Begin + 1; End < Findings.size() && SamePlace(Findings[Begin], Findings[End]); ++End)
      Top = std::max(Top, Findings[End].Level);
    for (std::size_t I = Begin; I < End; ++I)
      if (Findings[I].Level == Top)
        Kept.push_back(std::move(Findings[I]));
  }
  Findings = std::move(Kept);
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

} // namespace syncwatch
