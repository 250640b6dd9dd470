#include "syncwatch/confirm_evidence.h"

#include "syncwatch/evidence_number.h"

namespace syncwatch {
namespace {

std::string valueOr(const Finding &F, const char *Key) {
  const std::string *V = evidenceOf(F, Key);
  return V ? *V : std::string();
}

std::string valueOf(const std::vector<std::pair<std::string, std::string>> &Pairs, const std::string &Key) {
  for (const auto &[K, V] : Pairs)
    if (K == Key)
      return V;
  return "";
}

// A merged report's figure key of a rank's label (Merge's label(): "rank 3", "pid 4242").
std::string rankFigure(const std::string &Label) {
  if (Label.rfind("rank ", 0) == 0)
    return "rank." + Label.substr(5) + ".gpu";
  if (Label.rfind("pid ", 0) == 0)
    return "rank.pid" + Label.substr(4) + ".gpu";
  return "";
}

} // namespace

void setRuntimeEvidence(Finding &Result, const Finding &Runtime) {
  setEvidence(Result, confirm_key::RuntimeRule, Runtime.Rule);
  setEvidence(Result, confirm_key::RuntimeMessage, Runtime.Message);
  // The runtime's own keys (setMeasured's), under confirm's.
  for (auto [From, To] : {std::pair{"count", confirm_key::Count}, std::pair{"totalMs", confirm_key::TotalMs},
                          std::pair{"maxMs", confirm_key::MaxMs}})
    if (const std::string *V = evidenceOf(Runtime, From))
      setEvidence(Result, To, *V);
}

RuntimeEvidence readRuntimeEvidence(const Finding &F) {
  RuntimeEvidence E;
  E.Status = valueOr(F, confirm_key::Status);
  E.Gpu = valueOr(F, confirm_key::Gpu);
  const std::string *Total = evidenceOf(F, confirm_key::TotalMs);
  bool Shared = Total || evidenceOf(F, confirm_key::RuntimeMessage);
  if (!E.Status.empty() && (Shared || E.Status != "runtime-only")) {
    E.Count = valueOr(F, confirm_key::Count);
    // A time that is no measured time (negative, past a double: issue 42) is none, as in
    // every other reader; the hover then says the line was not measured.
    double Ms;
    if (Total && readMsText(confirm_key::TotalMs, *Total, Ms).empty())
      E.TotalMs = Ms;
    E.Rule = valueOr(F, confirm_key::RuntimeRule);
    E.Message = valueOr(F, confirm_key::RuntimeMessage);
    return E;
  }
  // The runtime's own finding (a runtime report's, or a runtime-only result confirm wrote
  // before its keys were shared).
  E.Count = valueOr(F, "count");
  if (F.Measured)
    E.TotalMs = F.Measured->TotalMs;
  E.Rule = F.Rule;
  E.Message = F.Message;
  return E;
}

std::string reportGpuOf(const Report &R, const Finding &F) {
  if (std::string Gpu = valueOf(R.Process, "gpu"); !Gpu.empty())
    return Gpu;
  if (const std::string *Worst = evidenceOf(F, "worstRank"))
    if (std::string Gpu = valueOf(R.Figures, rankFigure(*Worst)); !Gpu.empty())
      return Gpu;
  std::string All;
  for (const auto &[K, V] : R.Figures)
    if (K.rfind("rank.", 0) == 0 && K.size() > 4 && K.compare(K.size() - 4, 4, ".gpu") == 0 &&
        All.find(V) == std::string::npos)
      All += (All.empty() ? "" : ", ") + V;
  return All;
}

} // namespace syncwatch
