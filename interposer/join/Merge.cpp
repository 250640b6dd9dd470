#include "Merge.h"

#include "syncwatch/thread_costs.h"

#include "syncwatch/file_output.h"

#include "PathMaps.h"
#include "ToolFiles.h"

#include "../engine/Engine.h"
#include "../engine/TraceWriter.h"
#include "../engine/Utilization.h"
#include "../events/EventLog.h"

#include "syncwatch/fingerprint.h"
#include "syncwatch/json_report_reader.h"
#include "syncwatch/json_value.h"
#include "syncwatch/report.h"
#include "syncwatch/sarif_reader.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace syncwatch::runtime {

namespace {

// One process of the job, from its JSON report or its recording.
struct RankInput {
  std::string File;
  ProcessIdentity Process;
  Report R;
  EventLog Log;                    // recordings only
  std::unique_ptr<Engine> Analysis;  // recordings only: the trace's finding marks
  bool Recording = false;
  double hostLostMs() const {
    for (const auto &[K, V] : R.Figures)
      if (K == "hostTimeLostMs")
        return std::atof(V.c_str());
    double Sum = 0;
    for (const Finding &F : R.Findings)
      Sum += measuredMs(F);
    return Sum;
  }
  std::string label() const {
    if (Process.hasRank())
      return "rank " + std::to_string(Process.Rank);
    if (Process.Pid)
      return "pid " + std::to_string(Process.Pid);
    return File.substr(File.rfind('/') + 1);  // a recording made before processes were named
  }
};

// A recording, analyzed as `syncwatch replay` does.
bool loadRecording(RankInput &In, const std::string &Text, std::string &Error) {
  std::istringstream S(Text);
  ParseResult P = readEventLog(S);
  if (!P.Error.empty()) {
    Error = P.Error;
    return false;
  }
  In.Log = std::move(P.Log);
  In.Process = In.Log.Process;
  In.Analysis = std::make_unique<Engine>(EngineConfig{});
  In.Analysis->consume(In.Log);
  Utilization Use;
  for (const GpuWork &W : In.Log.Work)
    Use.add(W);
  In.R.ToolName = "syncwatch replay";
  In.R.ToolVersion = SYNCWATCH_VERSION;
  In.R.Findings = In.Analysis->findings();
  In.R.Figures = In.Analysis->reportFigures(Use.figures());
  In.R.Process = In.Process.pairs();
  In.R.Coverage = In.Analysis->coverage();
  In.Recording = true;
  return true;
}

bool loadInput(const std::string &File, RankInput &In, std::string &Error) {
  std::string Text;
  In.File = File;
  if (!readWholeFile(File, Text, Error))
    return false;
  if (Text.empty()) {
    Error = "empty (the process wrote nothing: killed before exit?)";
    return false;
  }
  if (Text.rfind("# syncwatch-events", 0) == 0)
    return loadRecording(In, Text, Error);
  // Not JSON at all: neither a recording nor a report. Else the reader's own words, which
  // say what kind of report it is not, or which field of one is out of range.
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Error)) {
    Error = "not a syncwatch recording or report (not JSON: " + Error + ")";
    return false;
  }
  bool Sarif = Doc["runs"].kind() != JsonValue::Kind::Null || Doc["$schema"].kind() != JsonValue::Kind::Null;
  if (Sarif ? !readSarifReport(Text, In.R, Error) : !readJsonReport(Doc, In.R, Error))
    return false;
  if (In.R.ToolName != "libsyncwatch" && In.R.ToolName != "syncwatch replay" && In.R.ToolName != "syncwatch merge") {
    Error = "a report of '" + In.R.ToolName + "', not of the runtime (libsyncwatch)";
    return false;
  }
  for (const auto &[K, V] : In.R.Process)
    In.Process.set(K, V);
  return true;
}

// The median process's value: of an even count the lower middle one, so that with two
// ranks the straggler is compared with the other rank, not with their mean.
double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V[(V.size() - 1) / 2];
}

// Times as every report says them (the engine's formatDuration), and as evidence values.


// The site a finding is at, the same on every rank: file and line (a release build's
// function+offset when there is no line).
std::string siteKey(const Finding &F) {
  std::string Where = F.Where.File + ":" + std::to_string(F.Where.Line);
  if (F.Where.Line == 0)
    if (const std::string *Fn = evidenceOf(F, "function"))
      Where += "@" + *Fn;
  return F.Rule + "\t" + Where;
}


std::string rankList(const std::vector<int> &Ranks) {
  std::string S;
  for (int R : Ranks)
    S += (S.empty() ? "" : ",") + std::to_string(R);
  return S;
}

struct Straggler {
  bool Found = false;
  std::string Rank;
  double LostMs = 0, MedianMs = 0;
  std::vector<std::pair<std::string, double>> Sites;  // "file:line (rule)", excess ms
};


} // namespace

bool loadRuntimeReport(const std::string &File, Report &R, std::string &Error) {
  RankInput In;
  if (!loadInput(File, In, Error))
    return false;
  R = std::move(In.R);
  if (R.Process.empty())
    R.Process = In.Process.pairs();
  return true;
}

namespace {

int fail(const std::string &Why) {
  std::cerr << "syncwatch merge: error: " << Why << "\n";
  return 2;
}

// Every input loaded (its paths mapped), or the exit code of why not (one line said).
int loadInputs(const std::vector<std::string> &Files, const MergeOptions &Opts, std::vector<RankInput> &Inputs) {
  if (Files.empty())
    return fail("no reports or recordings given");
  for (const std::string *Out : {&Opts.Output, &Opts.Trace})
    if (std::string In = outputThatIsAnInput(*Out, Files); !In.empty())
      return fail("the output '" + *Out + "' is the input '" + In + "': refusing to overwrite it");
  Inputs.resize(Files.size());
  for (std::size_t I = 0; I < Files.size(); ++I) {
    std::string Error;
    if (!loadInput(Files[I], Inputs[I], Error))
      return fail(Files[I] + ": " + Error);
    applyPathMaps(Inputs[I].R, Opts.PathMaps, Opts.Format != "text");
  }
  return 0;
}

// What the inputs say of their job: its id and world size (the first input to say each),
// and the input of each rank.
struct JobInputs {
  const RankInput *JobOf = nullptr, *SizeOf = nullptr;
  std::map<int, const RankInput *> ByRank;
};

// One job: the same job id (where given) and world size; each rank once. Else the exit code.
int checkOneJob(const std::vector<RankInput> &Inputs, JobInputs &Job) {
  for (const RankInput &In : Inputs) {
    const ProcessIdentity &P = In.Process;
    if (!P.Job.empty()) {
      if (Job.JobOf && Job.JobOf->Process.Job != P.Job)
        return fail("reports of different jobs: " + Job.JobOf->File + " (" + Job.JobOf->Process.Job + ") and " +
                    In.File + " (" + P.Job + ")");
      Job.JobOf = Job.JobOf ? Job.JobOf : &In;
    }
    if (P.WorldSize >= 0) {
      if (Job.SizeOf && Job.SizeOf->Process.WorldSize != P.WorldSize)
        return fail("reports of different jobs: " + Job.SizeOf->File + " has world size " +
                    std::to_string(Job.SizeOf->Process.WorldSize) + ", " + In.File + " " + std::to_string(P.WorldSize));
      Job.SizeOf = Job.SizeOf ? Job.SizeOf : &In;
    }
    if (P.hasRank()) {
      auto [It, New] = Job.ByRank.emplace(P.Rank, &In);
      if (!New)
        return fail("two inputs for rank " + std::to_string(P.Rank) + ": " + It->second->File + " and " + In.File +
                    " (a report and its recording? give one of them)");
    }
  }
  return 0;
}

// Ranks in order, then processes without a rank by pid.
void sortByRank(std::vector<RankInput> &Inputs) {
  std::stable_sort(Inputs.begin(), Inputs.end(), [](const RankInput &A, const RankInput &B) {
    int RA = A.Process.hasRank() ? A.Process.Rank : INT_MAX, RB = B.Process.hasRank() ? B.Process.Rank : INT_MAX;
    return RA != RB ? RA < RB : A.Process.Pid < B.Process.Pid;
  });
}

// The findings of one (rule, site) on every rank that reported it.
struct Group {
  std::vector<std::pair<std::size_t, const Finding *>> Hits;  // input index, its finding
};

// One finding of a site over all ranks: the worst rank's, with the counts and costs summed
// and the ranks named. Cost gets each input's cost there (0 when not hit).
Finding mergeGroup(const Group &G, const std::vector<RankInput> &Inputs, std::vector<double> &Cost) {
  Cost.assign(Inputs.size(), 0.0);
  double Count = 0, Total = 0, Max = 0;
  std::size_t Worst = G.Hits.front().first;
  const Finding *Base = G.Hits.front().second;
  Severity Level = Base->Level;
  std::vector<std::string> Labels;
  std::map<std::string, double> ByThread;  // "main" over every rank, a named thread over those it ran on
  for (auto [I, F] : G.Hits) {
    if (const std::string *T = evidenceOf(*F, "threads"))
      for (const auto &[Label, Ms] : parseThreadCosts(*T))
        ByThread[Label] += Ms;
    double T = measuredMs(*F);
    Cost[I] += T;
    Total += T;
    if (F->Measured) {
      Max = std::max(Max, F->Measured->MaxMs);
      Count += static_cast<double>(F->Measured->Count);
    }
    if (Cost[I] > Cost[Worst]) {
      Worst = I;
      Base = F;
    }
    Level = std::max(Level, F->Level);
    Labels.push_back(Inputs[I].label());
  }
  std::sort(Labels.begin(), Labels.end());
  Labels.erase(std::unique(Labels.begin(), Labels.end()), Labels.end());
  Finding M = *Base;
  M.Level = Level;
  std::string Ranks;
  for (const std::string &L : Labels)
    Ranks += (Ranks.empty() ? "" : ", ") + L;
  double Lo = *std::min_element(Cost.begin(), Cost.end()), Hi = Cost[Worst], Mid = median(Cost);
  std::string Where = Labels.size() == 1 ? "on " + Labels.front() + " only"
                                         : "on " + std::to_string(Labels.size()) + " of " +
                                               std::to_string(Inputs.size()) + " processes (" + Ranks +
                                               "), worst " + Inputs[Worst].label();
  M.Message = Where + ": " + Base->Message;
  setMeasured(M, {static_cast<std::uint64_t>(Count), Total, Max});
  setEvidence(M, "ranks", Ranks);
  setEvidence(M, "costPerRank", "min " + formatMs(Lo) + ", median " + formatMs(Mid) + ", max " + formatMs(Hi));
  setEvidence(M, "worstRank", Inputs[Worst].label());
  if (!ByThread.empty())
    setEvidence(M, "threads", formatThreadCosts(ThreadCosts(ByThread.begin(), ByThread.end())));
  return M;
}

// One finding per (rule, site) over all ranks; CostByRank: site key -> cost per input.
void mergeFindings(const std::vector<RankInput> &Inputs, Report &Merged,
                   std::map<std::string, std::vector<double>> &CostByRank) {
  std::map<std::string, Group> Groups;
  for (std::size_t I = 0; I < Inputs.size(); ++I)
    for (const Finding &F : Inputs[I].R.Findings)
      Groups[siteKey(F)].Hits.push_back({I, &F});
  for (auto &[Key, G] : Groups) {
    std::vector<double> Cost;
    Merged.Findings.push_back(mergeGroup(G, Inputs, Cost));
    CostByRank[Key] = std::move(Cost);
  }
  std::sort(Merged.Findings.begin(), Merged.Findings.end(), findingLess);
}

// Coverage: every process's calls per (API, line), summed.
void mergeCoverage(const std::vector<RankInput> &Inputs, Report &Merged) {
  std::map<std::tuple<std::string, std::string, unsigned>, CoveredCall> Covered;
  for (const RankInput &In : Inputs)
    for (const CoveredCall &C : In.R.Coverage) {
      auto [It, New] = Covered.try_emplace({C.Api, C.Where.File, C.Where.Line}, C);
      if (!New) {
        It->second.Count += C.Count;
        It->second.Measured += C.Measured;
        It->second.TotalMs += C.TotalMs;
        It->second.MaxMs = std::max(It->second.MaxMs, C.MaxMs);
      }
    }
  for (auto &[Key, C] : Covered)
    Merged.Coverage.push_back(std::move(C));
}

// The straggler: the process whose host waits (Lost, per input) exceed the median process's
// by the most, and the sites where its waits exceed that site's median the most.
Straggler findStraggler(const std::vector<RankInput> &Inputs, const std::vector<double> &Lost,
                        const std::map<std::string, std::vector<double>> &CostByRank) {
  Straggler S;
  if (Inputs.size() < 2)
    return S;
  S.MedianMs = median(Lost);
  std::size_t Top = std::max_element(Lost.begin(), Lost.end()) - Lost.begin();
  double Excess = Lost[Top] - S.MedianMs;
  if (Excess >= 1.0 && Excess >= 0.1 * S.MedianMs) {
    S.Found = true;
    S.Rank = Inputs[Top].label();
    S.LostMs = Lost[Top];
    for (const auto &[Key, Cost] : CostByRank) {
      double D = Cost[Top] - median(Cost);
      if (D > 0.5) {
        std::string Rule = Key.substr(0, Key.find('\t')), Site = Key.substr(Key.find('\t') + 1);
        S.Sites.push_back({Site + " (" + Rule + ")", D});
      }
    }
    std::sort(S.Sites.begin(), S.Sites.end(), [](auto &A, auto &B) { return A.second > B.second; });
    if (S.Sites.size() > 3)
      S.Sites.resize(3);
  }
  return S;
}

// The job: what every rank says, as figures and the merged report's process.
void addJobFigures(const std::vector<RankInput> &Inputs, const JobInputs &Job, int WorldSize,
                   const std::string &MissingText, const std::vector<double> &Lost, const Straggler &S,
                   Report &Merged) {
  if (Job.JobOf)
    Merged.Process.emplace_back("job", Job.JobOf->Process.Job);
  if (WorldSize >= 0)
    Merged.Process.emplace_back("worldSize", std::to_string(WorldSize));
  Merged.Process.emplace_back("processes", std::to_string(Inputs.size()));
  std::string Seen;
  for (const RankInput &In : Inputs)
    Seen += (Seen.empty() ? "" : ",") + (In.Process.hasRank() ? std::to_string(In.Process.Rank) : "pid" + std::to_string(In.Process.Pid));
  Merged.Figures.emplace_back("ranks", Seen);
  if (!MissingText.empty())
    Merged.Figures.emplace_back("ranksMissing", MissingText);
  for (std::size_t I = 0; I < Inputs.size(); ++I) {
    std::string P = "rank." + (Inputs[I].Process.hasRank() ? std::to_string(Inputs[I].Process.Rank)
                                                            : "pid" + std::to_string(Inputs[I].Process.Pid));
    Merged.Figures.emplace_back(P + ".hostTimeLostMs", evidenceNumber(Lost[I]));
    Merged.Figures.emplace_back(P + ".findings", std::to_string(Inputs[I].R.Findings.size()));
    if (!Inputs[I].Process.Host.empty())
      Merged.Figures.emplace_back(P + ".host", Inputs[I].Process.Host);
    if (!Inputs[I].Process.Gpu.empty())
      Merged.Figures.emplace_back(P + ".gpu", Inputs[I].Process.Gpu);
    Merged.Figures.emplace_back(P + ".input", Inputs[I].File);
  }
  if (S.Found) {
    Merged.Figures.emplace_back("straggler", S.Rank);
    Merged.Figures.emplace_back("stragglerHostTimeLostMs", evidenceNumber(S.LostMs));
    Merged.Figures.emplace_back("medianHostTimeLostMs", evidenceNumber(S.MedianMs));
    std::string Sites;
    for (auto &[Site, D] : S.Sites)
      Sites += (Sites.empty() ? "" : "; ") + Site + " +" + formatMs(D);
    Merged.Figures.emplace_back("stragglerSites", Sites);
  }
}

// The text form's head: the job, each process, the missing ranks and the straggler.
void writeJobText(std::ostream &Out, const std::vector<RankInput> &Inputs, const JobInputs &Job, int WorldSize,
                  const std::vector<int> &Missing, const std::string &MissingText, const std::vector<double> &Lost,
                  const Straggler &S) {
  std::set<std::string> Hosts, Gpus;
  for (const RankInput &In : Inputs) {
    if (!In.Process.Host.empty())
      Hosts.insert(In.Process.Host);
    if (!In.Process.Gpu.empty())
      Gpus.insert(In.Process.Gpu);
  }
  Out << "syncwatch merge: " << Inputs.size() << " process(es)";
  if (WorldSize >= 0)
    Out << " of a job of " << WorldSize << " rank(s)";
  if (Job.JobOf)
    Out << " (" << Job.JobOf->Process.Job << ")";
  Out << ", " << Hosts.size() << " host(s), " << Gpus.size() << " GPU(s)\n";
  for (std::size_t I = 0; I < Inputs.size(); ++I) {
    const ProcessIdentity &P = Inputs[I].Process;
    Out << "  " << Inputs[I].label() << ": host time lost " << formatMs(Lost[I]) << ", " << Inputs[I].R.Findings.size()
        << " finding(s)";
    if (!P.Host.empty())
      Out << ", " << P.Host;
    if (!P.Gpu.empty())
      Out << ", " << P.Gpu;
    if (P.Pid)
      Out << ", pid " << P.Pid;
    Out << "  [" << Inputs[I].File << "]\n";
  }
  if (!Missing.empty())
    Out << "  missing: rank(s) " << MissingText << " of " << WorldSize
        << " (no report: the process made no CUDA call, was killed, or its report is elsewhere)\n";
  if (S.Found) {
    Out << "straggler: " << S.Rank << " lost " << formatMs(S.LostMs) << " of host time to waits, the median process "
        << formatMs(S.MedianMs);
    if (!S.Sites.empty()) {
      Out << "; the difference is at";
      for (std::size_t I = 0; I < S.Sites.size(); ++I)
        Out << (I ? "," : "") << " " << S.Sites[I].first << " +" << formatMs(S.Sites[I].second);
    }
    Out << "\n";
  } else if (Inputs.size() >= 2) {
    Out << "straggler: none (every process's host waits are within 10% or 1 ms of the median, "
        << formatMs(median(Lost)) << ")\n";
  }
}

// One rank's tracks of the merged trace: its host threads and its GPU, with the finding
// marks of its recording analyzed again. Null (said on stderr) for a report: no events.
std::unique_ptr<TraceBuilder> rankTrace(const RankInput &In, std::size_t I) {
  if (!In.Recording) {
    std::cerr << "syncwatch merge: " << In.File << " is a report, not a recording: " << In.label()
              << " has no events in the trace (record with syncwatch run --record)\n";
    return nullptr;
  }
  TraceOptions TO;
  TO.MaxEvents = SIZE_MAX;
  TO.Pid = 2 * I + 1;
  TO.GpuPid = 2 * I + 2;
  TO.ProcessName = In.label() + (In.Process.Host.empty() ? "" : " on " + In.Process.Host) +
                   (In.Process.Pid ? " (pid " + std::to_string(In.Process.Pid) + ")" : "");
  TO.GpuName = In.label() + ": " + (In.Process.Gpu.empty() ? "GPU" : In.Process.Gpu);
  TO.FlowIdOffset = static_cast<std::uint64_t>(I + 1) << 44;
  auto B = std::make_unique<TraceBuilder>(TO);
  for (const StreamInfo &St : In.Log.Streams)
    B->addStream(St);
  for (const ApiCall &C : In.Log.Calls)
    B->addCall(C);
  for (const GpuWork &W : In.Log.Work)
    B->addWork(W);
  // Finding marks: the recording analyzed again, its occurrences drawn.
  Engine Marks{EngineConfig{}};
  Marks.onOccurrence([&](const Occurrence &O) { B->addOccurrence(O); });
  Marks.consume(In.Log);
  return B;
}

// The merged trace: a process track per rank (its host threads) and one for its GPU.
std::string mergedTrace(const std::vector<RankInput> &Inputs) {
  std::vector<std::unique_ptr<TraceBuilder>> Builders;
  std::uint64_t First = UINT64_MAX;
  for (std::size_t I = 0; I < Inputs.size(); ++I) {
    Builders.push_back(rankTrace(Inputs[I], I));
    if (Builders.back())
      First = std::min(First, Builders.back()->firstTime());
  }
  std::ostringstream T;
  {
    JsonWriter J(T, /*Pretty=*/false);
    std::uint64_t Base = traceBase(First);
    writeTraceHeader(J, Base, 0);
    for (std::size_t I = 0; I < Inputs.size(); ++I)
      if (Builders[I]) {
        Engine *E = Inputs[I].Analysis.get();
        Builders[I]->writeEvents(J, [E](RuleId Rule, std::uint32_t Site) { return E->reported(Rule, Site); }, Base);
      }
    J.endArray();
    J.endObject();
  }
  T << "\n";
  return T.str();
}

} // namespace

// Load and check the inputs are one job's, merge their findings and coverage, find the
// straggler, then write the report (and the trace).
int mergeReports(const std::vector<std::string> &Files, const MergeOptions &Opts) {
  std::vector<RankInput> Inputs;
  if (int Rc = loadInputs(Files, Opts, Inputs))
    return Rc;
  JobInputs Job;
  if (int Rc = checkOneJob(Inputs, Job))
    return Rc;
  sortByRank(Inputs);
  int WorldSize = Job.SizeOf ? Job.SizeOf->Process.WorldSize : -1;
  std::vector<int> Missing;
  for (int R = 0; R < WorldSize; ++R)
    if (!Job.ByRank.count(R))
      Missing.push_back(R);
  std::string MissingText = Missing.empty() ? "" : rankList(Missing);

  Report Merged;
  Merged.ToolName = "syncwatch merge";
  Merged.ToolVersion = SYNCWATCH_VERSION;
  std::map<std::string, std::vector<double>> CostByRank;  // key -> per input (0 when not hit)
  mergeFindings(Inputs, Merged, CostByRank);
  mergeCoverage(Inputs, Merged);
  std::vector<double> Lost;
  for (const RankInput &In : Inputs)
    Lost.push_back(In.hostLostMs());
  Straggler S = findStraggler(Inputs, Lost, CostByRank);
  addJobFigures(Inputs, Job, WorldSize, MissingText, Lost, S, Merged);
  Merged.SourceRoot = sourceRootOption(Opts.SourceRoot);
  setFingerprints(Merged);

  std::ostringstream Out;
  if (!writeReportAs(Out, Merged, Opts.Format, {"syncwatch merge", Opts.LinkBase})) {
    writeJobText(Out, Inputs, Job, WorldSize, Missing, MissingText, Lost, S);
    Out << "syncwatch merge: " << findingsHeadline(Merged.Findings) << "\n";
    writeText(Out, Merged.Findings, diskLineReader(), TextOptions{false, false});
  }
  std::string TraceText = Opts.Trace.empty() ? std::string() : mergedTrace(Inputs);

  std::string Why;
  if (!Opts.Trace.empty() && !writeFileAtomically(Opts.Trace, TraceText, Why))
    return fail("cannot write '" + Opts.Trace + "': " + Why + " (any old file is untouched)");
  if (Opts.Output.empty() ? !writeStdout(Out.str(), Why) : !writeFileAtomically(Opts.Output, Out.str(), Why))
    return fail(Opts.Output.empty() ? Why : "cannot write '" + Opts.Output + "': " + Why + " (any old file is untouched)");
  if (!Opts.Quiet && !Missing.empty() && Opts.Format != "text")
    std::cerr << "syncwatch merge: rank(s) " << MissingText << " of " << WorldSize << " missing\n";
  return Merged.Findings.empty() ? 0 : 1;
}

} // namespace syncwatch::runtime
