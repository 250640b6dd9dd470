#include "Confirm.h"

#include "syncwatch/file_output.h"

#include "Merge.h"
#include "ToolFiles.h"

#include "../engine/Engine.h"

#include "syncwatch/catalogue.h"
#include "syncwatch/confirm_evidence.h"
#include "syncwatch/finding.h"
#include "syncwatch/path_suffix.h"
#include "syncwatch/report.h"
#include "syncwatch/sarif_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace syncwatch::runtime {

namespace {

int fail(const std::string &Why) {
  std::cerr << "syncwatch confirm: error: " << Why << "\n";
  return 2;
}

// A finding measured as a count, not a time: syncwatch-torch-current-stream's launches off
// PyTorch's current stream are an ordering bug whatever they cost, so --min-cost-ms does
// not apply and confirmed means "ran there N times".
bool isCountFinding(const Finding &F) { return evidenceOf(F, "offStreamLaunches") != nullptr; }

std::string countConfirmation(const Finding &R) {
  const std::string *N = evidenceOf(R, "offStreamLaunches"), *Races = evidenceOf(R, "racesSeen"),
                    *Current = evidenceOf(R, "currentStream"), *Launch = evidenceOf(R, "launchStream");
  bool Legacy = Launch && Launch->rfind("legacy stream", 0) == 0;  // streamLabel's words
  std::string Out = std::string(Legacy ? "ran on the legacy stream " : "ran off PyTorch's current stream ") + *N +
                    " time(s) while PyTorch's current stream was " + (Current ? *Current : std::string("another"));
  if (Races && *Races != "0")
    Out += ", " + *Races + " seen racing with its work";
  return Out;
}

// Whether a static result and a runtime finding are about the same call: the same API, all
// launch spellings (<<<>>>, cudaLaunchKernel, cuLaunchKernel...) being one.
bool sameApi(const Finding &Static, const Finding &Runtime) {
  const std::string *A = evidenceOf(Static, "api"), *B = evidenceOf(Runtime, "api");
  if (!A || !B)
    return false;
  if (*A == *B)
    return true;
  // A tensor sync inside an op (item, cpu, nonzero...) is the CUDA wait it makes: the
  // runtime's torch-host-sync is that rule's whatever the API.
  if (Static.Rule == Runtime.Rule && confirmUse(Static.Rule) == ConfirmUse::AnyApi)
    return true;
  auto Launch = [](const std::string &Api) {
    const ApiInfo *I = findApi(Api);
    return Api == "<<<>>>" || (I && I->Family == ApiFamily::Launch);
  };
  return Launch(*A) && Launch(*B);
}

// The setting that times every call (docs/runtime.md): what a not-measured line needs.
constexpr const char *kMeasureAll = "SYNCWATCH_MEASURE=all";

bool isLaunchApi(const std::string &Api) {
  const ApiInfo *I = findApi(Api);
  return Api == "<<<>>>" || (I && I->Family == ApiFamily::Launch);
}

// Why the calls of a line ran untimed, as the fast path decides (CallFilter.h).
std::string untimedWhy(const std::string &Api) {
  if (isLaunchApi(Api))
    return "launched while no blocking stream had work, so its kernels were not traced";
  return "the fast path counted it without timing it";
}

// --- inputs -------------------------------------------------------------------------------

// The lint's SARIF and the runtime reports, or the exit code of why not (one line said).
int loadInputs(const ConfirmOptions &Opts, Report &Static, std::vector<Report> &Runtime) {
  {
    std::vector<std::string> Inputs = Opts.Runtime;
    Inputs.push_back(Opts.Static);
    if (std::string In = outputThatIsAnInput(Opts.Output, Inputs); !In.empty())
      return fail("the output '" + Opts.Output + "' is the input '" + In + "': refusing to overwrite it");
  }
  std::string Text, Error;
  if (!readWholeFile(Opts.Static, Text, Error))
    return fail(Opts.Static + ": " + Error);
  if (!readSarifReport(Text, Static, Error))
    return fail(Opts.Static + ": not a SARIF log: " + Error);
  if (Static.ToolName != "syncwatch-lint")
    return fail(Opts.Static + ": SARIF of '" + Static.ToolName + "', not of syncwatch-lint");
  if (Opts.Runtime.empty())
    return fail("no runtime reports given (--runtime REPORT...)");
  Runtime.resize(Opts.Runtime.size());
  for (std::size_t I = 0; I < Opts.Runtime.size(); ++I)
    if (!loadRuntimeReport(Opts.Runtime[I], Runtime[I], Error))
      return fail(Opts.Runtime[I] + ": " + Error);
  return 0;
}

// A runtime finding, the report it is from, and whether a static result claimed it.
struct Measured {
  const Finding *F;
  const Report *From;
  bool Used = false;
};

// The runtime reports indexed by the static side's files and lines: what each static result
// is joined with.
struct RuntimeIndex {
  const ConfirmOptions &Opts;
  std::map<std::string, std::vector<std::string>> StaticFiles;  // path -> components
  std::map<std::string, std::string> FileMatch;                 // runtime path -> static path
  std::vector<Measured> Findings;
  std::map<std::pair<std::string, unsigned>, std::vector<std::size_t>> FindingsAt;
  std::map<std::pair<std::string, unsigned>, std::vector<const CoveredCall *>> Ran;
  // A release build's sites, which have no line: by function (qualifiedFunctionName).
  std::map<std::string, std::vector<std::size_t>> FindingsInFunction;
  std::set<std::string> StaticFunctions;
  bool AnyRuntimeSite = false, AnyMatched = false;

  explicit RuntimeIndex(const ConfirmOptions &O) : Opts(O) {}

  std::string mapped(std::string P) const {
    for (const auto &[From, To] : Opts.PathMaps)
      if (P.rfind(From, 0) == 0)
        return To + P.substr(From.size());
    return P;
  }

  // Which static file a runtime file is: the longest common suffix, at least the file name;
  // an exact path (after --path-map) wins. Null: none, or a tie.
  const std::string *staticFileOf(const std::string &RuntimeFile) {
    auto It = FileMatch.find(RuntimeFile);
    if (It == FileMatch.end()) {
      std::string Path = mapped(RuntimeFile), Best;
      std::vector<std::string> C = pathComponents(Path);
      std::size_t BestScore = 0;
      bool Tie = false;
      for (const auto &[S, SC] : StaticFiles) {
        std::size_t Score = S == Path ? SIZE_MAX : commonSuffix(C, SC);
        if (Score > BestScore) {
          BestScore = Score;
          Best = S;
          Tie = false;
        } else if (Score == BestScore && Score > 0) {
          Tie = true;
        }
      }
      It = FileMatch.emplace(RuntimeFile, BestScore > 0 && !Tie ? Best : "").first;
    }
    return It->second.empty() ? nullptr : &It->second;
  }
};

// The static files: those of the results and their notes, and every file the lint analyzed
// (run.artifacts), results or not: a runtime finding in a file that was analyzed and found
// clean is runtime-only, not "another program".
void indexStaticSide(const Report &Static, RuntimeIndex &Ix) {
  for (const Finding &F : Static.Findings) {
    Ix.StaticFiles.emplace(F.Where.File, pathComponents(F.Where.File));
    for (const FindingNote &N : F.Notes)
      Ix.StaticFiles.emplace(N.Where.File, pathComponents(N.Where.File));
  }
  for (const Artifact &A : Static.Artifacts)
    Ix.StaticFiles.emplace(A.File, pathComponents(A.File));
  for (const Finding &S : Static.Findings)
    if (!S.Function.empty())
      Ix.StaticFunctions.insert(qualifiedFunctionName(S.Function));
}

// One runtime finding: at its line, in its function (a release build's, or a Python frame's
// native frame without a line) and at its native frame's line.
void indexFinding(const Finding &F, const Report &R, RuntimeIndex &Ix) {
  Ix.Findings.push_back({&F, &R});
  Ix.AnyRuntimeSite = true;
  // (or, in a Python process, a native frame without a line: "module (symbol+0x..)")
  const std::string *Native = evidenceOf(F, "nativeSite");
  bool NativeWithoutLine = Native && !Native->empty() && Native->substr(0, Native->find(" (")).rfind(':') == std::string::npos;
  if (const std::string *Fn = evidenceOf(F, "function"); Fn && (F.Where.Line == 0 || NativeWithoutLine)) {
    std::string Key = qualifiedFunctionName(*Fn);
    Ix.FindingsInFunction[Key].push_back(Ix.Findings.size() - 1);
    Ix.AnyMatched |= Ix.StaticFunctions.count(Key) > 0;
  }
  if (const std::string *S = Ix.staticFileOf(F.Where.File)) {
    Ix.FindingsAt[{*S, F.Where.Line}].push_back(Ix.Findings.size() - 1);
    Ix.AnyMatched = true;
  }
  // A Python process's finding is at the Python line; its native frame (a C++ extension
  // the static side analyzed) is in the evidence: "file:line (function)".
  if (const std::string *N = evidenceOf(F, "nativeSite"); N && !N->empty()) {
    std::string Site = N->substr(0, N->find(' '));
    auto Colon = Site.rfind(':');
    if (Colon != std::string::npos)
      if (const std::string *S = Ix.staticFileOf(Site.substr(0, Colon))) {
        Ix.FindingsAt[{*S, static_cast<unsigned>(std::atoi(Site.c_str() + Colon + 1))}].push_back(Ix.Findings.size() - 1);
        Ix.AnyMatched = true;
      }
  }
}

// One coverage entry: the line a user edits and, in a Python process, the native frame under
// it (a C++ extension's line), each counted once.
void indexCoverage(const CoveredCall &C, RuntimeIndex &Ix) {
  Ix.AnyRuntimeSite = true;
  std::vector<std::pair<std::string, unsigned>> Lines{{C.Where.File, C.Where.Line}};
  if (!C.NativeFile.empty() && (C.NativeFile != C.Where.File || C.NativeLine != C.Where.Line))
    Lines.push_back({C.NativeFile, C.NativeLine});
  for (const auto &[File, Line] : Lines)
    if (const std::string *S = Ix.staticFileOf(File)) {
      Ix.Ran[{*S, Line}].push_back(&C);
      Ix.AnyMatched = true;
    }
}

void indexRuntimeSide(const std::vector<Report> &Runtime, RuntimeIndex &Ix) {
  for (const Report &R : Runtime) {
    for (const Finding &F : R.Findings)
      indexFinding(F, R, Ix);
    for (const CoveredCall &C : R.Coverage)
      indexCoverage(C, Ix);
  }
}

// The sources each side read: the lint's run.artifacts and the runtime's report artifacts
// (the files as the program's checkout had them when the report was written). A file
// whose hashes differ means the lines of one side need not be the other's.
std::vector<std::string> sourcesThatDiffer(const Report &Static, const std::vector<Report> &Runtime, RuntimeIndex &Ix) {
  std::vector<std::string> Disagree;
  std::map<std::string, std::string> StaticHash;
  for (const Artifact &A : Static.Artifacts)
    if (!A.Sha256.empty())
      StaticHash[A.File] = A.Sha256;
  std::set<std::string> Seen;
  for (const Report &R : Runtime)
    for (const Artifact &A : R.Artifacts) {
      const std::string *S = A.Sha256.empty() ? nullptr : Ix.staticFileOf(A.File);
      auto It = S ? StaticHash.find(*S) : StaticHash.end();
      if (It != StaticHash.end() && It->second != A.Sha256 && Seen.insert(*S).second)
        Disagree.push_back(*S);
    }
  return Disagree;
}

void warnSourcesDiffer(const std::vector<std::string> &Disagree) {
  for (std::size_t I = 0; I < Disagree.size() && I < 5; ++I)
    std::cerr << "syncwatch confirm: warning: " << Disagree[I]
              << " differs between the checkout the lint analyzed and the one the program ran from "
                 "(SHA-256); its lines may not match: lint and run the same commit\n";
  if (Disagree.size() > 5)
    std::cerr << "syncwatch confirm: warning: and " << Disagree.size() - 5 << " more file(s) differ\n";
}

// Whether every launch (and every filtered copy) that ran is in the coverage: reports of a
// recorder that counted them all, with launch callbacks never off. Else a launch line with
// no coverage may have run untimed, which is not "never ran". Returns why a missing launch
// line is not known not to have run ("": it is).
std::string launchGapOf(const std::vector<Report> &Runtime) {
  std::string LaunchGap;
  for (const Report &R : Runtime) {
    std::string Launches, UnwatchedMs;
    for (const auto &[K, V] : R.Figures) {
      if (K == "coverage.launches")
        Launches = V;
      if (K == "coverage.launchesUnwatchedMs")
        UnwatchedMs = V;
    }
    if (Launches == "partial" && LaunchGap.empty())
      LaunchGap = "syncwatch stopped counting launches for " + formatMs(std::atof(UnwatchedMs.c_str())) +
                  " of the run, after many launches in a row that could not matter";
    else if (Launches != "complete" && Launches != "partial")
      LaunchGap = "this recording does not count launches (made before syncwatch counted them)";
  }
  return LaunchGap;
}

// Where the runtime reports ran (GPU, host, driver, calibration profile): every result says it.
struct RunPlace {
  std::string Gpu, Host, Driver, Profile;
};

RunPlace runPlaceOf(const std::vector<Report> &Runtime) {
  RunPlace P;
  for (const Report &R : Runtime) {
    // (a merged report names its ranks' GPUs in its figures)
    if (std::string G = reportGpuOf(R, Finding()); !G.empty() && P.Gpu.find(G) == std::string::npos)
      P.Gpu += (P.Gpu.empty() ? "" : ", ") + G;
    for (const auto &[K, V] : R.Process) {
      if (K == "host" && P.Host.find(V) == std::string::npos)
        P.Host += (P.Host.empty() ? "" : ", ") + V;
      if (K == "driver" && P.Driver.find(V) == std::string::npos)
        P.Driver += (P.Driver.empty() ? "" : ", ") + V;
    }
  }
  for (const Report &R : Runtime)
    for (const auto &[K, V] : R.Figures)
      if (K == "calibrationProfile" || K == "calibration.device")
        P.Profile = V;
  return P;
}

void addRunPlace(Finding &F, const RunPlace &P) {
  for (auto [Key, Value] : {std::pair{confirm_key::Gpu, &P.Gpu}, std::pair{confirm_key::Host, &P.Host},
                            std::pair{confirm_key::Driver, &P.Driver}, std::pair{confirm_key::Profile, &P.Profile}})
    if (!Value->empty())
      F.Evidence.emplace_back(Key, *Value);
}

// --- each static result's status ------------------------------------------------------------

// What the runtime measured for one static result.
struct Match {
  std::vector<std::pair<std::size_t, unsigned>> Hits;  // runtime finding, line it was at
  unsigned FirstLine = 0, LastLine = 0;                 // the lines the call is written over
  bool Causal = false;      // found at the legacy-stream work a blocking stream's notes name
  std::string ByFunction;   // matched by function (release build): "function" or why ambiguous
  bool StaticOnly = false;  // a rule the runtime does not report
  const Measured *Best = nullptr;
  unsigned BestLine = 0;
};

// What ran at this line, or - for a blocking stream - at the legacy-stream work its notes
// name, which is where the runtime sees the stream's work hold it back.
void matchByLine(const Finding &S, const RuntimeIndex &Ix, Match &M) {
  auto Collect = [&](const std::string &File, unsigned Line) {
    if (auto It = Ix.FindingsAt.find({File, Line}); It != Ix.FindingsAt.end())
      for (std::size_t I : It->second)
        M.Hits.push_back({I, Line});
  };
  // A call written over several lines (a macro invocation's argument on the next line):
  // the runtime's line table may name any line of it.
  // Or the line of the macro invocation it is written in, which is what nvcc's and gcc's line
  // tables give every call of an expanded macro.
  M.FirstLine = S.ContextLine && S.ContextLine < S.Where.Line ? std::max(S.ContextLine, S.Where.Line - 8) : S.Where.Line;
  M.LastLine = std::max(S.Where.Line, std::min(S.Where.EndLine, S.Where.Line + 8));
  for (unsigned L = M.FirstLine; L <= M.LastLine; ++L)
    Collect(S.Where.File, L);
  if (M.Hits.empty() && confirmUse(S.Rule) == ConfirmUse::Notes) {
    for (const FindingNote &N : S.Notes)
      if (N.Where.Line != S.Where.Line)
        Collect(N.Where.File, N.Where.Line);
    M.Causal = !M.Hits.empty();
  }
}

// A release build: no line, so the runtime findings in the same function with the same
// API. Several static results of that API in the function, or several such sites, are
// an ambiguous match, said as such.
void matchByFunction(const Finding &S, const Report &Static, const RuntimeIndex &Ix, Match &M) {
  if (!M.Hits.empty() || S.Function.empty())
    return;
  auto It = Ix.FindingsInFunction.find(qualifiedFunctionName(S.Function));
  if (It == Ix.FindingsInFunction.end())
    return;
  for (std::size_t I : It->second)
    if (sameApi(S, *Ix.Findings[I].F))
      M.Hits.push_back({I, 0});
  if (M.Hits.empty())
    return;
  // The static results of that API in the function, in source order; this one's place.
  std::size_t Rivals = 0, Place = 0;
  for (const Finding &Other : Static.Findings)
    if (qualifiedFunctionName(Other.Function) == It->first && sameApi(Other, *Ix.Findings[M.Hits.front().first].F)) {
      ++Rivals;
      Place += std::tie(Other.Where.Line, Other.Where.Column) < std::tie(S.Where.Line, S.Where.Column);
    }
  // As many sites as results: paired in order, the sites by their offset into the
  // function (straight-line code keeps its order; said as ambiguous all the same).
  if (Rivals > 1 && Rivals == M.Hits.size()) {
    auto Offset = [&](std::size_t I) {
      const std::string *Fn = evidenceOf(*Ix.Findings[I].F, "function");
      auto Plus = Fn ? Fn->find("+0x") : std::string::npos;
      return Plus == std::string::npos ? 0ul : std::strtoul(Fn->c_str() + Plus + 3, nullptr, 16);
    };
    std::sort(M.Hits.begin(), M.Hits.end(), [&](auto A, auto B) { return Offset(A.first) < Offset(B.first); });
    M.Hits = {M.Hits[Place]};
  }
  const std::string *Api = evidenceOf(S, "api");
  M.ByFunction = Rivals > 1 || M.Hits.size() > 1
                     ? "ambiguous: " + std::to_string(std::max(Rivals, M.Hits.size())) + " calls of '" +
                           (Api ? *Api : std::string("it")) + "' in " + It->first + "()" +
                           (M.Hits.size() == 1 ? ", paired in source order" : "")
                     : "function";
}

// The runtime findings one static result is about, the costliest (preferring the same rule)
// its best; all of them are claimed (not runtime-only).
Match matchStatic(const Finding &S, const Report &Static, RuntimeIndex &Ix) {
  Match M;
  matchByLine(S, Ix, M);
  matchByFunction(S, Static, Ix, M);
  // A rule the runtime does not report (syncwatch-redundant-sync: what dropping the call
  // saves is not what the runtime measures at its line) is judged by whether its line ran,
  // never by another rule's cost there.
  const RuleInfo *Info = findRule(S.Rule);
  M.StaticOnly = Info && !Info->runtimeReports();
  if (M.StaticOnly)
    M.Hits.erase(std::remove_if(M.Hits.begin(), M.Hits.end(), [&](auto H) { return Ix.Findings[H.first].F->Rule != S.Rule; }),
                 M.Hits.end());
  for (auto [I, Line] : M.Hits) {
    const Measured &Cand = Ix.Findings[I];
    auto Better = [&](const Measured &A, const Measured &B) {
      bool SA = A.F->Rule == S.Rule, SB = B.F->Rule == S.Rule;
      return SA != SB ? SA : measuredMs(*A.F) > measuredMs(*B.F);
    };
    if (!M.Best || Better(Cand, *M.Best)) {
      M.Best = &Cand;
      M.BestLine = Line;
    }
  }
  for (auto [I, Line] : M.Hits)
    Ix.Findings[I].Used = true;
  return M;
}

// Confirmed: the runtime's cost and where it was measured, in the evidence and the message.
void markConfirmed(Finding &F, const Match &M) {
  const Finding &R = *M.Best->F;
  double Cost = measuredMs(R);
  setRuntimeEvidence(F, R);
  if (M.ByFunction.empty())
    F.Evidence.emplace_back(confirm_key::RuntimeLine, std::to_string(M.BestLine));
  if (M.Causal)
    F.Evidence.emplace_back(confirm_key::Via, "its stream's work held the legacy-stream work at line " +
                                                std::to_string(M.BestLine));
  if (!M.ByFunction.empty()) {
    F.Evidence.emplace_back(confirm_key::MatchedBy, M.ByFunction == "function" ? "function" : "function, " + M.ByFunction);
    if (const std::string *Fn = evidenceOf(R, "function"))
      F.Evidence.emplace_back(confirm_key::RuntimeFunction, *Fn);
  }
  if (isCountFinding(R))
    F.Message += " [confirmed: " + countConfirmation(R) + "]";
  else
    F.Message += " [confirmed: " + std::string(M.Causal ? "held the work at :" + std::to_string(M.BestLine) + ", " : "") +
                 (M.ByFunction.empty() ? "" : "matched by function (no line table" +
                                                  (M.ByFunction == "function" ? std::string("") : "; " + M.ByFunction) + "), ") +
                 "cost " + formatMs(Cost) + (evidenceOf(R, "count") ? " over " + *evidenceOf(R, "count") + " call(s)" : "") + "]";
}

// What the coverage says ran on a static result's lines (the first line that ran).
struct LineRuns {
  const std::vector<const CoveredCall *> *Calls = nullptr;
  std::uint64_t Count = 0, Timed = 0;
  double Total = 0, Max = 0;
};

LineRuns runsOnLines(const Finding &S, const Match &M, const RuntimeIndex &Ix) {
  LineRuns R;
  for (unsigned L = M.FirstLine; L <= M.LastLine && !R.Calls; ++L)
    if (auto It = Ix.Ran.find({S.Where.File, L}); It != Ix.Ran.end())
      R.Calls = &It->second;
  if (R.Calls)
    for (const CoveredCall *C : *R.Calls) {
      R.Count += C->Count;
      R.Timed += C->Measured;
      R.Total += C->TotalMs;
      R.Max = std::max(R.Max, C->MaxMs);
    }
  return R;
}

// Not observed: the line ran and never stalled (or below --min-cost-ms, or a rule the
// runtime does not measure).
void markNotObserved(Finding &F, const Finding &S, const Match &M, const LineRuns &Runs, double MinCostMs) {
  F.Evidence.emplace_back(confirm_key::Count, std::to_string(Runs.Count));
  if (Runs.Timed < Runs.Count)
    F.Evidence.emplace_back(confirm_key::Measured, std::to_string(Runs.Timed));
  F.Evidence.emplace_back(confirm_key::TotalMs, evidenceNumber(Runs.Total));
  F.Evidence.emplace_back(confirm_key::MaxMs, evidenceNumber(Runs.Max));
  if (M.StaticOnly) {
    F.Evidence.emplace_back(confirm_key::Unmeasured, "the runtime does not report " + S.Rule);
    F.Message += " [not observed: ran " + std::to_string(Runs.Count) + " time(s); the runtime does not measure what "
                 "this rule saves (docs/rules/" + S.Rule + ".md)]";
  } else if (M.Best) {
    F.Evidence.emplace_back(confirm_key::BelowMinCostMs, evidenceNumber(measuredMs(*M.Best->F)));
    F.Message += " [not observed: ran " + std::to_string(Runs.Count) + " time(s); what it cost, " +
                 formatMs(measuredMs(*M.Best->F)) + ", is below --min-cost-ms " + evidenceNumber(MinCostMs) + "]";
  } else {
    F.Message += " [not observed: ran " + std::to_string(Runs.Count) + " time(s)" +
                 (Runs.Timed < Runs.Count ? " (" + std::to_string(Runs.Timed) + " timed)" : std::string()) + ", " +
                 formatMs(Runs.Total) + " in all, max " + formatMs(Runs.Max) + ", and never stalled on this GPU]";
  }
}

// Whatever is not confirmed: not-measured, not-observed or not-exercised, by what the
// coverage says of its lines. Returns the status.
std::string markUnconfirmed(Finding &F, const Finding &S, const Match &M, const RuntimeIndex &Ix,
                            const std::string &LaunchGap, bool HaveCoverage) {
  LineRuns Runs = runsOnLines(S, M, Ix);
  const std::string *Api = evidenceOf(S, "api");
  // (Copies the fast path filters - pinned, on a non-blocking stream - were counted by every
  // recorder that writes coverage.launches; older ones filtered only those, which a
  // pageable-copy warning's line would not be: launches are what was left uncounted.)
  bool Filterable = Api && isLaunchApi(*Api);
  if (Runs.Calls && Runs.Timed == 0 && !M.StaticOnly && !M.Best) {
    // It ran, and nothing of it was timed: harmless is not known.
    F.Evidence.emplace_back(confirm_key::Count, std::to_string(Runs.Count));
    F.Evidence.emplace_back(confirm_key::Measured, "0");
    F.Evidence.emplace_back(confirm_key::MeasureWith, kMeasureAll);
    F.Message += " [not measured: ran " + std::to_string(Runs.Count) + " time(s), none timed (" +
                 untimedWhy(Api ? *Api : "") + "); " + kMeasureAll + " times every call]";
    return "not-measured";
  }
  if (!Runs.Calls && Filterable && !LaunchGap.empty()) {
    F.Evidence.emplace_back(confirm_key::MeasureWith, kMeasureAll);
    F.Message += " [not measured: not seen, but " + LaunchGap + "; " + kMeasureAll + " counts and times every call]";
    return "not-measured";
  }
  if (Runs.Calls) {
    markNotObserved(F, S, M, Runs, Ix.Opts.MinCostMs);
    return "not-observed";
  }
  F.Message += HaveCoverage ? " [not exercised: the recorded workload never ran this line]"
                            : " [not exercised: no runtime coverage (reports older than syncwatch 0.1.0?)]";
  return "not-exercised";
}

// The results confirm writes, with their statuses counted and their costs (for the ranking).
struct Judged {
  Report Out;
  std::map<std::string, unsigned> StatusCount;
  double MaxCost = 0;
  std::vector<double> Costs;

  void add(Finding F, const std::string &Status, double Cost) {
    ++StatusCount[Status];
    MaxCost = std::max(MaxCost, Cost);
    Costs.push_back(Cost);
    Out.Findings.push_back(std::move(F));
  }
};

// Each static result with its status: confirmed when what the runtime measured there is at
// least --min-cost-ms (or a count finding), else by what ran on its lines.
void judgeStaticResults(const Report &Static, RuntimeIndex &Ix, const RunPlace &Place, const std::string &LaunchGap,
                        bool HaveCoverage, Judged &J) {
  for (const Finding &S : Static.Findings) {
    Finding F = S;
    F.Evidence.clear();
    Match M = matchStatic(S, Static, Ix);
    std::string Status;
    double Cost = 0;
    if (M.Best && (measuredMs(*M.Best->F) >= Ix.Opts.MinCostMs || isCountFinding(*M.Best->F))) {
      Status = "confirmed";
      Cost = measuredMs(*M.Best->F);
      markConfirmed(F, M);
    } else {
      Status = markUnconfirmed(F, S, M, Ix, LaunchGap, HaveCoverage);
    }
    F.Evidence.insert(F.Evidence.begin(), {confirm_key::Status, Status});
    addRunPlace(F, Place);
    J.add(std::move(F), Status, Cost);
  }
}

// Runtime findings no static warning names.
void addRuntimeOnly(RuntimeIndex &Ix, const RunPlace &Place, Judged &J) {
  for (const Measured &M : Ix.Findings) {
    if (M.Used || (measuredMs(*M.F) < Ix.Opts.MinCostMs && !isCountFinding(*M.F)))
      continue;
    Finding F = *M.F;
    double Cost = measuredMs(F);
    // Placed in the checkout the lint ran in (its SARIF then annotates the right file).
    if (const std::string *S = Ix.staticFileOf(F.Where.File))
      F.Where.File = *S;
    // Confirm's keys beside the runtime's own (readers ask the same keys of every status).
    F.Evidence.insert(F.Evidence.begin(), {confirm_key::Status, "runtime-only"});
    setRuntimeEvidence(F, *M.F);
    addRunPlace(F, Place);
    F.Message += " [runtime-only: no static warning at this line]";
    J.add(std::move(F), "runtime-only", Cost);
  }
}

// Ranked by measured cost: SARIF rank 0-100, costliest first.
void rankByCost(Judged &J) {
  Report &Out = J.Out;
  const std::vector<double> &Costs = J.Costs;
  for (std::size_t I = 0; I < Out.Findings.size(); ++I)
    Out.Findings[I].Rank = J.MaxCost > 0 ? 100.0 * Costs[I] / J.MaxCost : 0;
  std::vector<std::size_t> Order(Out.Findings.size());
  for (std::size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(), [&](std::size_t A, std::size_t B) {
    return Costs[A] != Costs[B] ? Costs[A] > Costs[B] : findingLess(Out.Findings[A], Out.Findings[B]);
  });
  std::vector<Finding> Sorted;
  for (std::size_t I : Order)
    Sorted.push_back(std::move(Out.Findings[I]));
  Out.Findings = std::move(Sorted);
}

// Fingerprints: the static ones (code scanning keeps one alert per site); runtime-only
// results get the runtime's. The figures: each status's count, and the sources that differ.
void addStatusFigures(Judged &J, const std::vector<std::string> &Disagree) {
  for (const char *S : {"confirmed", "not-observed", "not-measured", "not-exercised", "runtime-only"})
    J.Out.Figures.emplace_back(std::string("status.") + S, std::to_string(J.StatusCount[S]));
  if (!Disagree.empty()) {
    std::string Files;
    for (const std::string &F : Disagree)
      Files += (Files.empty() ? "" : ", ") + F;
    J.Out.Figures.emplace_back("sourcesDiffer", Files);
  }
}

// --- the gate and the text ------------------------------------------------------------------

bool gateFails(const Report &Out, const std::string &FailOn) {
  bool Fails = false;
  for (const Finding &F : Out.Findings) {
    const std::string *St = evidenceOf(F, "syncwatch.status");
    if (FailOn == "confirmed")
      Fails |= *St == "confirmed";
    else if (FailOn == "runtime")
      Fails |= *St == "confirmed" || *St == "runtime-only";
    else
      Fails |= *St != "runtime-only" && F.Level >= Severity::Warning;
  }
  return Fails;
}

// One result of the text form: status, place, rule and what was measured.
void writeTextResult(std::ostream &O, const Finding &F, const std::string &SourceRoot) {
  const std::string *St = evidenceOf(F, "syncwatch.status");
  O << "  " << *St << std::string(14 - std::min<std::size_t>(13, St->size()), ' ');
  std::string Where = F.Where.File;
  if (!SourceRoot.empty() && Where.rfind(SourceRoot + "/", 0) == 0)
    Where = Where.substr(SourceRoot.size() + 1);
  O << Where << ":" << F.Where.Line << "  " << F.Rule;
  if (const std::string *T = evidenceOf(F, "syncwatch.totalMs"); T && *St == "confirmed")
    O << "  " << formatMs(std::atof(T->c_str()));
  else if (F.Measured && *St == "runtime-only")
    O << "  " << formatMs(F.Measured->TotalMs);
  else if (const std::string *C = evidenceOf(F, "syncwatch.count"); C && *St == "not-observed") {
    if (const std::string *B = evidenceOf(F, "syncwatch.belowMinCostMs"))
      O << "  ran " << *C << "x, cost " << formatMs(std::atof(B->c_str())) << " < --min-cost-ms";
    else
      O << "  ran " << *C << "x, no stall";
  } else if (*St == "not-measured") {
    if (const std::string *C = evidenceOf(F, "syncwatch.count"))
      O << "  ran " << *C << "x, untimed";
    else
      O << "  not counted";
    O << " (" << kMeasureAll << ")";
  }
  O << "\n";
}

void writeText(std::ostream &O, const ConfirmOptions &Opts, std::size_t StaticCount, std::size_t RuntimeCount,
               const std::string &Gpu, Judged &J, const std::vector<std::string> &Disagree, bool Fails) {
  O << "syncwatch confirm: " << StaticCount << " static result(s) against " << RuntimeCount
    << " runtime report(s)" << (Gpu.empty() ? "" : " (" + Gpu + ")") << ": " << J.StatusCount["confirmed"]
    << " confirmed, " << J.StatusCount["not-observed"] << " not observed, " << J.StatusCount["not-measured"]
    << " not measured, " << J.StatusCount["not-exercised"] << " not exercised, " << J.StatusCount["runtime-only"]
    << " runtime-only\n";
  if (!Disagree.empty())
    O << "  (" << Disagree.size() << " source file(s) differ between the lint's checkout and the program's: "
      << "the lines may not match)\n";
  for (const Finding &F : J.Out.Findings)
    writeTextResult(O, F, J.Out.SourceRoot);
  O << "syncwatch confirm: --fail-on=" << Opts.FailOn << ": " << (Fails ? "fails" : "passes") << "\n";
}

} // namespace

// Load both sides, judge each static result's status (and the runtime's own findings), then
// the gate and the report.
int confirmFindings(const ConfirmOptions &Opts) {
  Report Static;
  std::vector<Report> Runtime;
  if (int Rc = loadInputs(Opts, Static, Runtime))
    return Rc;
  RuntimeIndex Ix(Opts);
  indexStaticSide(Static, Ix);
  indexRuntimeSide(Runtime, Ix);
  std::vector<std::string> Disagree = sourcesThatDiffer(Static, Runtime, Ix);
  warnSourcesDiffer(Disagree);
  if ((!Static.Findings.empty() || !Static.Artifacts.empty()) && Ix.AnyRuntimeSite && !Ix.AnyMatched)
    return fail("the runtime reports share no source file with " + Opts.Static +
                ": reports of another program? (--path-map OLD=NEW where the checkouts' paths differ beyond a common suffix)");
  bool HaveCoverage = std::any_of(Runtime.begin(), Runtime.end(), [](const Report &R) { return !R.Coverage.empty(); });
  std::string LaunchGap = launchGapOf(Runtime);
  RunPlace Place = runPlaceOf(Runtime);

  Judged J;
  J.Out.ToolName = "syncwatch confirm";
  J.Out.ToolVersion = SYNCWATCH_VERSION;
  J.Out.RulesRun = Static.RulesRun;
  // The lint's root unless told otherwise: the results are the lint's files.
  J.Out.SourceRoot = Opts.SourceRoot.empty() && !Static.SourceRoot.empty() ? Static.SourceRoot
                                                                           : sourceRootOption(Opts.SourceRoot);
  judgeStaticResults(Static, Ix, Place, LaunchGap, HaveCoverage, J);
  addRuntimeOnly(Ix, Place, J);
  rankByCost(J);
  addStatusFigures(J, Disagree);

  bool Fails = gateFails(J.Out, Opts.FailOn);
  std::ostringstream O;
  if (!writeReportAs(O, J.Out, Opts.Format, {"syncwatch confirm", Opts.LinkBase}))
    writeText(O, Opts, Static.Findings.size(), Runtime.size(), Place.Gpu, J, Disagree, Fails);
  std::string Why;
  if (Opts.Output.empty() ? !writeStdout(O.str(), Why) : !writeFileAtomically(Opts.Output, O.str(), Why))
    return fail(Opts.Output.empty() ? Why : "cannot write '" + Opts.Output + "': " + Why + " (any old file is untouched)");
  return Fails ? 1 : 0;
}

} // namespace syncwatch::runtime
