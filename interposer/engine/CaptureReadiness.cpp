#include "CaptureReadiness.h"

#include "syncwatch/catalogue.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

namespace syncwatch::runtime {

std::string_view blockerName(Blocker B) {
  switch (B) {
  case Blocker::Waits: return "waits for the GPU";
  case Blocker::Unsafe: return "allocates, frees or pins";
  case Blocker::LegacyStream: return "runs on the legacy stream";
  }
  return "";
}

std::optional<Blocker> blockerOf(const ApiCall &C, bool LegacyWork) {
  if (C.CaptureNumber)  // a call of a capture the program made: the Capture pass's
    return std::nullopt;
  const ApiInfo *Api = findApi(C.Api);
  if (!Api)
    return std::nullopt;
  switch (Api->Capture) {
  case CaptureUse::Conflicts: return Blocker::Waits;
  case CaptureUse::Unsafe: return Blocker::Unsafe;
  case CaptureUse::Recorded: return LegacyWork ? std::optional(Blocker::LegacyStream) : std::nullopt;
  default: return std::nullopt;
  }
}

void CaptureReadiness::add(const ApiCall &C, Blocker B) {
  if (Calls.size() >= kMaxCalls) {
    Partial = true;
    return;
  }
  Calls.push_back({C.Thread, C.Enter, C.Site, C.Api, B});
}

void CaptureReadiness::addGraphLaunch(const ApiCall &C) {
  if (GraphLaunches.size() < kMaxCalls)
    GraphLaunches.emplace_back(C.Thread, C.Enter);
}

namespace {

std::uint64_t medianOf(std::vector<std::uint64_t> V) {
  std::sort(V.begin(), V.end());
  return V.size() % 2 ? V[V.size() / 2] : (V[V.size() / 2 - 1] + V[V.size() / 2]) / 2;
}

} // namespace

bool CaptureReadiness::Verdict::go() const {
  return std::none_of(Lines.begin(), Lines.end(), [this](const Line &L) { return !L.OtherThread && !occasional(L); });
}

std::vector<std::uint32_t> CaptureReadiness::sites() const {
  std::vector<std::uint32_t> S;
  for (const Kept &K : Calls)
    S.push_back(K.Site);
  std::sort(S.begin(), S.end());
  S.erase(std::unique(S.begin(), S.end()), S.end());
  return S;
}

std::optional<CaptureReadiness::Verdict>
CaptureReadiness::judge(const std::vector<StepSpan> &Steps, const std::function<bool(std::uint32_t, std::uint64_t)> &CurrentStreamWork,
                        const std::function<std::uint32_t(std::uint32_t)> &SameLine) const {
  // The steps of the most frequent (name, thread): the loop a capture would replace.
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> Groups;
  for (const StepSpan &S : Steps)
    ++Groups[{S.Name, S.Thread}];
  if (Groups.empty())
    return std::nullopt;
  auto Most = std::max_element(Groups.begin(), Groups.end(),
                               [](const auto &A, const auto &B) { return A.second < B.second; });
  Verdict V;
  V.Step = Most->first.first;
  V.Thread = Most->first.second;
  V.Partial = Partial;
  std::vector<StepSpan> Mine;
  for (const StepSpan &S : Steps)
    if (S.Name == V.Step && S.Thread == V.Thread)
      Mine.push_back(S);
  std::sort(Mine.begin(), Mine.end(), [](const StepSpan &A, const StepSpan &B) { return A.Start < B.Start; });
  if (Mine.size() >= 3) {
    Mine.erase(Mine.begin());  // warm-up
    V.WarmUp = 1;
  }
  V.Steps = Mine.size();
  // The step a time falls in (its index), or none.
  auto stepAt = [&](std::uint64_t T) -> std::optional<std::size_t> {
    auto It = std::upper_bound(Mine.begin(), Mine.end(), T, [](std::uint64_t X, const StepSpan &S) { return X < S.Start; });
    if (It == Mine.begin())
      return std::nullopt;
    --It;
    return T <= It->End ? std::optional(static_cast<std::size_t>(It - Mine.begin())) : std::nullopt;
  };
  // Replays and eager runs of the step: does the step's thread launch a graph inside it?
  std::vector<bool> Replays(Mine.size(), false);
  for (const auto &[Thread, Enter] : GraphLaunches)
    if (Thread == V.Thread)
      if (std::optional<std::size_t> Step = stepAt(Enter))
        Replays[*Step] = true;
  std::vector<std::uint64_t> ReplayNs, EagerNs;
  for (std::size_t I = 0; I < Mine.size(); ++I)
    (Replays[I] ? ReplayNs : EagerNs).push_back(Mine[I].End - Mine[I].Start);
  if (ReplayNs.size() >= Verdict::kMinEach && EagerNs.size() >= Verdict::kMinEach) {
    V.ReplaySteps = ReplayNs.size();
    V.EagerSteps = EagerNs.size();
    V.ReplayMedianNs = medianOf(ReplayNs);
    V.EagerMedianNs = medianOf(EagerNs);
  }
  std::vector<Kept> Sorted = Calls;
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const Kept &A, const Kept &B) { return A.Enter < B.Enter; });
  std::map<std::tuple<bool, std::uint32_t, std::string_view>, std::pair<Line, std::size_t>> ByLine;  // line, last step
  for (const Kept &K : Sorted) {
    std::optional<std::size_t> Step = stepAt(K.Enter);
    if (!Step || (K.Kind == Blocker::LegacyStream && CurrentStreamWork && CurrentStreamWork(K.Site, K.Thread)))
      continue;
    bool Other = K.Thread != V.Thread;
    std::uint32_t Site = SameLine ? SameLine(K.Site) : K.Site;
    auto [It, New] = ByLine.try_emplace({Other, Site, K.Api});
    Line &L = It->second.first;
    if (New) {
      L = {Site, K.Api, K.Kind, 0, 0, Other};
      It->second.second = SIZE_MAX;
    }
    ++L.Calls;
    if (It->second.second != *Step) {
      ++L.StepsWith;
      It->second.second = *Step;
    }
  }
  for (auto &[Key, LineAndStep] : ByLine)
    V.Lines.push_back(LineAndStep.first);
  std::stable_sort(V.Lines.begin(), V.Lines.end(), [](const Line &A, const Line &B) {
    return A.OtherThread != B.OtherThread ? !A.OtherThread : A.Calls > B.Calls;
  });
  return V;
}

namespace {

std::string perStep(std::uint64_t Calls, std::size_t Steps) {
  if (Steps && Calls % Steps == 0)
    return std::to_string(Calls / Steps);
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f", Steps ? static_cast<double>(Calls) / Steps : 0.0);
  return Buf;
}

std::string lineText(const CaptureReadiness::Line &L, std::size_t Steps,
                     const std::function<std::string(std::uint32_t)> &SiteText) {
  std::string Where = SiteText(L.Site);
  std::string Text = perStep(L.Calls, Steps) + " x " + std::string(L.Api) + (Where.empty() ? "" : " at " + Where) +
                     " (" + std::string(blockerName(L.Kind)) + "; ";
  Text += L.StepsWith == Steps ? "every step" : "in " + std::to_string(L.StepsWith) + " of " + std::to_string(Steps) + " steps";
  return Text + ")";
}

} // namespace

std::vector<std::pair<std::string, std::string>>
readinessFigures(const CaptureReadiness::Verdict &V, const std::function<std::string(std::uint32_t)> &SiteText,
                 const std::function<std::string(std::uint64_t)> &Label) {
  std::vector<std::pair<std::string, std::string>> Out;
  std::uint64_t Own = 0;
  std::string Blockers, Others, Occasional;
  for (const CaptureReadiness::Line &L : V.Lines) {
    std::string &To = L.OtherThread ? Others : V.occasional(L) ? Occasional : Blockers;
    To += (To.empty() ? "" : "; ") + lineText(L, V.Steps, SiteText);
    if (L.OtherThread)
      To += " on " + std::string("another thread");
    else if (!V.occasional(L))
      Own += L.Calls;
  }
  Out.emplace_back("readiness.step", V.Step);
  Out.emplace_back("readiness.steps", std::to_string(V.Steps));
  if (V.WarmUp)
    Out.emplace_back("readiness.warmUpSteps", std::to_string(V.WarmUp));
  Out.emplace_back("readiness.thread", Label(V.Thread));
  Out.emplace_back("readiness.verdict", V.go() ? "go" : "no-go");
  Out.emplace_back("readiness.blockersPerStep", perStep(Own, V.Steps));
  if (!Blockers.empty())
    Out.emplace_back("readiness.blockers", Blockers);
  if (!Others.empty())
    Out.emplace_back("readiness.otherThreads", Others);
  if (!Occasional.empty())
    Out.emplace_back("readiness.occasional", Occasional);
  if (V.Partial)
    Out.emplace_back("readiness.partial", "true");
  if (V.ReplaySteps) {
    auto Us = [](double Ns) {
      char Buf[32];
      std::snprintf(Buf, sizeof Buf, "%.1f", Ns / 1000.0);
      return std::string(Buf);
    };
    Out.emplace_back("readiness.replayedSteps", std::to_string(V.ReplaySteps));
    Out.emplace_back("readiness.replayStepUs", Us(static_cast<double>(V.ReplayMedianNs)));
    Out.emplace_back("readiness.eagerSteps", std::to_string(V.EagerSteps));
    Out.emplace_back("readiness.eagerStepUs", Us(static_cast<double>(V.EagerMedianNs)));
    Out.emplace_back("readiness.launchTimeSavedUs",
                     Us(static_cast<double>(V.EagerMedianNs) - static_cast<double>(V.ReplayMedianNs)));
  }
  return Out;
}

std::string readinessText(const std::vector<std::pair<std::string, std::string>> &Figures) {
  std::map<std::string, std::string> F(Figures.begin(), Figures.end());
  if (!F.count("readiness.verdict"))
    return "";
  std::string Text = "capture readiness of the " + F["readiness.steps"] + " '" + F["readiness.step"] + "' steps on thread " +
                     F["readiness.thread"] +
                     (F.count("readiness.warmUpSteps") ? " (after " + F["readiness.warmUpSteps"] + " warm-up)" : "") + ": ";
  if (F["readiness.verdict"] == "go")
    Text += "go - none of their calls would stop a CUDA graph capture";
  else
    Text += "no-go - " + F["readiness.blockersPerStep"] + " blocker(s) a step: " + F["readiness.blockers"];
  if (F.count("readiness.occasional"))
    Text += "; occasional, in at most 1 of 10 of the loop's steps (between graph replays they can stay): " +
            F["readiness.occasional"];
  if (F.count("readiness.otherThreads"))
    Text += "; while they ran, other threads made calls that break a global-mode capture: " + F["readiness.otherThreads"];
  if (F.count("readiness.replayedSteps")) {
    double Saved = std::strtod(F["readiness.launchTimeSavedUs"].c_str(), nullptr);
    double Eager = std::strtod(F["readiness.eagerStepUs"].c_str(), nullptr);
    double Replay = std::strtod(F["readiness.replayStepUs"].c_str(), nullptr);
    char Ratio[32] = "";
    if (Replay > 0)
      std::snprintf(Ratio, sizeof Ratio, ", %.1fx", Eager / Replay);
    Text += "; " + F["readiness.replayedSteps"] + " of the steps replayed a CUDA graph: " + F["readiness.replayStepUs"] +
            " us a step (median) against " + F["readiness.eagerStepUs"] + " us for the " + F["readiness.eagerSteps"] +
            " that ran the step uncaptured - " +
            (Saved >= 0 ? F["readiness.launchTimeSavedUs"] + " us saved a step" + Ratio
                        : F["readiness.launchTimeSavedUs"].substr(1) + " us lost a step" + Ratio);
  }
  if (F.count("readiness.partial"))
    Text += " (partial: more calls than syncwatch keeps)";
  return Text + "\n";
}

} // namespace syncwatch::runtime
