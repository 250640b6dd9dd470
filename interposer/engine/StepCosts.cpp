#include "StepCosts.h"

#include "syncwatch/report.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <cstdio>

namespace syncwatch::runtime {

void StepCosts::addStep(const StepSpan &S) {
  Tracking = true;
  if (Steps.size() >= kMaxSteps) {
    Partial = true;
    return;
  }
  Steps.push_back(S);
}

void StepCosts::addWait(std::uint64_t Thread, std::uint64_t Enter, std::uint64_t Cost) {
  if (!Tracking || !Cost)
    return;
  if (Waits.size() >= kMaxWaits) {
    Partial = true;
    return;
  }
  Waits.push_back({Thread, Enter, Cost});
}

std::vector<StepCosts::Cost> StepCosts::costs() const {
  std::vector<Cost> Out;
  Out.reserve(Steps.size());
  for (const StepSpan &S : Steps)
    Out.push_back({0, S, 0, 0});
  std::stable_sort(Out.begin(), Out.end(), [](const Cost &A, const Cost &B) { return A.Span.Start < B.Span.Start; });
  for (std::size_t I = 0; I < Out.size(); ++I)
    Out[I].Index = I + 1;
  std::vector<Wait> W = Waits;
  std::sort(W.begin(), W.end(), [](const Wait &A, const Wait &B) {
    return A.Thread != B.Thread ? A.Thread < B.Thread : A.Enter < B.Enter;
  });
  for (Cost &C : Out) {
    auto Lo = std::lower_bound(W.begin(), W.end(), Wait{C.Span.Thread, C.Span.Start, 0}, [](const Wait &A, const Wait &B) {
      return A.Thread != B.Thread ? A.Thread < B.Thread : A.Enter < B.Enter;
    });
    for (auto It = Lo; It != W.end() && It->Thread == C.Span.Thread && It->Enter <= C.Span.End; ++It) {
      C.BlockedNs += It->Cost;
      ++C.Waits;
    }
  }
  return Out;
}

std::vector<std::pair<std::string, std::string>>
StepCosts::figures(std::uint64_t RunStart, const std::function<std::string(std::uint64_t)> &Label) const {
  std::vector<std::pair<std::string, std::string>> Out;
  if (Steps.empty())
    return Out;
  std::vector<Cost> All = costs();
  std::uint64_t Total = 0;
  const Cost *Worst = &All.front();
  for (const Cost &C : All) {
    Total += C.BlockedNs;
    if (C.BlockedNs > Worst->BlockedNs)
      Worst = &C;
  }
  // The names the pattern matched, as they first appear ("train_step, eval_step").
  std::vector<std::string> Seen;
  std::string Names;
  for (const Cost &C : All)
    if (Seen.size() < 8 && std::find(Seen.begin(), Seen.end(), C.Span.Name) == Seen.end()) {
      Seen.push_back(C.Span.Name);
      Names += (Names.empty() ? "" : ", ") + C.Span.Name;
    }
  Out.emplace_back("steps.name", Names);
  Out.emplace_back("steps.count", std::to_string(All.size()));
  Out.emplace_back("steps.blockedTotalMs", evidenceNumber(Total / 1e6));
  Out.emplace_back("steps.blockedMeanMs", evidenceNumber(Total / 1e6 / All.size()));
  Out.emplace_back("steps.blockedWorstMs", evidenceNumber(Worst->BlockedNs / 1e6));
  Out.emplace_back("steps.worstIndex", std::to_string(Worst->Index));
  // "#17 of 500 (main, 3.2 s into the run, 41 ms long, 2 waits)": where to look in a trace.
  char Buf[160];
  double Into = Worst->Span.Start > RunStart && RunStart != UINT64_MAX ? (Worst->Span.Start - RunStart) / 1e9 : 0;
  std::snprintf(Buf, sizeof Buf, "#%zu of %zu (%s, %.3f s into the run, %s long, %llu wait%s)", Worst->Index,
                All.size(), Label(Worst->Span.Thread).c_str(), Into,
                formatDuration(Worst->Span.End - Worst->Span.Start).c_str(),
                static_cast<unsigned long long>(Worst->Waits), Worst->Waits == 1 ? "" : "s");
  Out.emplace_back("steps.worst", Buf);
  if (Partial)
    Out.emplace_back("steps.partial", "true");
  return Out;
}

std::string stepsText(const std::vector<std::pair<std::string, std::string>> &Figures) {
  std::map<std::string, std::string> F(Figures.begin(), Figures.end());
  if (!F.count("steps.count"))
    return "";
  return F["steps.count"] + " '" + F["steps.name"] + "' steps: the worst, " + F["steps.worst"] + ", blocked " +
         formatMs(std::atof(F["steps.blockedWorstMs"].c_str())) + "; the mean " +
         formatMs(std::atof(F["steps.blockedMeanMs"].c_str())) +
         (F.count("steps.partial") ? " (partial: more steps or waits than syncwatch keeps)" : "") + "\n";
}

} // namespace syncwatch::runtime
