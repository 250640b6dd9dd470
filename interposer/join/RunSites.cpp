#include "RunSites.h"

#include "Merge.h"
#include "PathMaps.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/report.h"
#include "syncwatch/thread_costs.h"

#include <algorithm>
#include <cstdlib>

namespace syncwatch::runtime {

namespace {

std::string figure(const Report &R, const std::string &Key) {
  for (const auto &[K, V] : R.Figures)
    if (K == Key)
      return V;
  return "";
}

} // namespace

SiteId siteOf(const Finding &F) {
  SiteId S;
  S.Rule = F.Rule;
  S.File = F.Where.File;
  S.Line = F.Where.Line;
  S.Fingerprint = F.Fingerprint;
  if (const std::string *Fn = evidenceOf(F, "function"))
    S.Function = qualifiedFunctionName(*Fn);
  else
    S.Function = qualifiedFunctionName(F.Function);
  if (const std::string *A = evidenceOf(F, "api"))
    S.Api = *A;
  return S;
}

bool loadSide(const std::vector<VerifyRun> &Runs, Side &Out, std::string &Error) {
  std::map<std::string, std::size_t> ByKey;  // rule + file + line + function + api -> site
  for (const VerifyRun &Run : Runs) {
    std::map<std::size_t, double> Blocked;
    double Idle = 0, Lost = 0, Span = 0;
    Side::Steps Steps;
    bool Untraced = false;
    for (const std::string &File : Run.Files) {
      Report R;
      std::string Why;
      if (!loadRuntimeReport(File, R, Why)) {
        Error = File + ": " + Why;
        return false;
      }
      for (const Finding &F : R.Findings) {
        if (!F.Measured || confirmUse(F.Rule) == ConfirmUse::Count)  // a count, not a time
          continue;
        SiteId S = siteOf(F);
        std::string Key = S.Rule + "\t" + S.File + "\t" + std::to_string(S.Line) + "\t" + S.Function + "\t" + S.Api;
        auto [It, New] = ByKey.try_emplace(Key, Out.Sites.size());
        if (New) {
          Out.Sites.push_back(S);
          Out.Levels.push_back(F.Level);
          Out.ThreadMs.emplace_back();
        }
        Out.Levels[It->second] = std::max(Out.Levels[It->second], F.Level);
        if (const std::string *T = evidenceOf(F, "threads"))
          for (const auto &[Label, Ms] : parseThreadCosts(*T))
            Out.ThreadMs[It->second][Label] += Ms;
        Blocked[It->second] += F.Measured->TotalMs;
      }
      Idle += std::atof(figure(R, "gpuIdleMs").c_str());
      Untraced |= figure(R, "kernelsTraced") == "none";
      Lost += std::atof(figure(R, "hostTimeLostMs").c_str());
      Span = std::max(Span, std::atof(figure(R, "cudaSpanMs").c_str()));
      if (unsigned long N = std::strtoul(figure(R, "steps.count").c_str(), nullptr, 10)) {
        double Worst = std::atof(figure(R, "steps.blockedWorstMs").c_str());
        if (!Steps.Count || Worst > Steps.WorstMs) {
          Steps.WorstMs = Worst;
          Steps.Worst = figure(R, "steps.worst");
          Steps.MeanMs = std::atof(figure(R, "steps.blockedMeanMs").c_str());
        }
        Steps.Name = figure(R, "steps.name");
        Steps.Count += N;
      }
    }
    Out.StepsOfRun.push_back(Steps);
    Out.UntracedRuns += Untraced ? 1 : 0;
    Out.BlockedMs.push_back(std::move(Blocked));
    Out.GpuIdleMs.push_back(Idle);
    Out.HostLostMs.push_back(Lost);
    // Wall time: measured by verify when it ran the command; else the CUDA span the report has.
    Out.WallMs.push_back(Run.WallMs >= 0 ? Run.WallMs : Span);
    Out.HaveWall &= Run.WallMs >= 0 || Span > 0;
    Out.MeasuredWall &= Run.WallMs >= 0;
  }
  return true;
}

void mapSitePaths(Side &S, const std::vector<std::pair<std::string, std::string>> &PathMaps) {
  for (SiteId &Site : S.Sites)
    Site.File = mapPath(Site.File, PathMaps);
}

std::vector<long> matchSites(const Side &B, const Side &A) {
  std::vector<long> Match(A.Sites.size(), -1);
  std::vector<bool> Taken(B.Sites.size(), false);
  auto Pass = [&](auto Same) {
    for (std::size_t I = 0; I < A.Sites.size(); ++I)
      for (std::size_t J = 0; Match[I] < 0 && J < B.Sites.size(); ++J)
        if (!Taken[J] && A.Sites[I].Rule == B.Sites[J].Rule && Same(A.Sites[I], B.Sites[J])) {
          Match[I] = static_cast<long>(J);
          Taken[J] = true;
        }
  };
  Pass([](const SiteId &X, const SiteId &Y) { return !X.Fingerprint.empty() && X.Fingerprint == Y.Fingerprint; });
  Pass([](const SiteId &X, const SiteId &Y) { return !X.File.empty() && X.File == Y.File && X.Line == Y.Line; });
  Pass([](const SiteId &X, const SiteId &Y) { return !X.Function.empty() && X.Function == Y.Function && X.Api == Y.Api; });
  return Match;
}

} // namespace syncwatch::runtime
