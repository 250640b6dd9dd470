#include "Verify.h"

#include "Merge.h"
#include "RunSites.h"

#include "syncwatch/file_output.h"
#include "syncwatch/finding.h"
#include "syncwatch/json_writer.h"
#include "syncwatch/report.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace syncwatch::runtime {

namespace {

int fail(const std::string &Why) {
  std::cerr << "syncwatch verify: error: " << Why << "\n";
  return 2;
}

double mean(const std::vector<double> &V) {
  double S = 0;
  for (double X : V)
    S += X;
  return V.empty() ? 0 : S / static_cast<double>(V.size());
}

double variance(const std::vector<double> &V) {
  if (V.size() < 2)
    return 0;
  double M = mean(V), S = 0;
  for (double X : V)
    S += (X - M) * (X - M);
  return S / static_cast<double>(V.size() - 1);
}

// Student's t, two-sided 95%, by degrees of freedom (1..30; beyond, the normal's 1.96).
double tCritical(double Df) {
  static const double T[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (!(Df >= 1))
    return T[0];
  int D = static_cast<int>(std::floor(Df));  // rounded down: the wider interval
  return D <= 30 ? T[D - 1] : 1.96;
}

struct SiteResult {
  SiteId Before, After;  // Before empty: new in after; After empty: gone
  bool InBefore = false, InAfter = false;
  Difference D;
};

std::string ms(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f ms", V);
  return Buf;
}
std::string signedMs(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%+.2f ms", V);
  return Buf;
}
std::string interval(const Difference &D) { return "[" + signedMs(D.Low) + ", " + signedMs(D.High) + "]"; }

std::string sentence(const Difference &D) {
  if (D.Verdict == "saved")
    return "saved " + ms(-D.Delta) + " a run (95% interval " + ms(-D.High) + " to " + ms(-D.Low) + ")";
  if (D.Verdict == "slower")
    return "slower by " + ms(D.Delta) + " a run (95% interval " + ms(D.Low) + " to " + ms(D.High) + ")";
  return "no change within noise (" + signedMs(D.Delta) + ", 95% interval " + interval(D) + ")";
}

} // namespace

Difference compareSamples(const std::vector<double> &Before, const std::vector<double> &After, double MinEffect) {
  Difference D;
  D.BeforeMean = mean(Before);
  D.AfterMean = mean(After);
  D.Delta = D.AfterMean - D.BeforeMean;
  double VB = variance(Before) / std::max<double>(1, Before.size()), VA = variance(After) / std::max<double>(1, After.size());
  double Se = std::sqrt(VA + VB);
  // Welch-Satterthwaite degrees of freedom; one run a side has none: the interval is then
  // as wide as the t of one degree allows (12.7 standard errors), never a point.
  double Df = 1;
  if (VA + VB > 0) {
    double Den = (Before.size() > 1 ? VB * VB / static_cast<double>(Before.size() - 1) : 0) +
                 (After.size() > 1 ? VA * VA / static_cast<double>(After.size() - 1) : 0);
    Df = Den > 0 ? (VA + VB) * (VA + VB) / Den : 1;
  }
  double Half = tCritical(Df) * Se;
  D.Low = D.Delta - Half;
  D.High = D.Delta + Half;
  if (D.High < 0 && -D.Delta >= MinEffect)
    D.Verdict = "saved";
  else if (D.Low > 0 && D.Delta >= MinEffect)
    D.Verdict = "slower";
  else
    D.Verdict = "no change";
  return D;
}

bool runsInDirectory(const std::string &Dir, std::vector<VerifyRun> &Runs, std::string &Error) {
  auto Entries = [](const std::string &D, std::vector<std::string> &Names) {
    DIR *H = ::opendir(D.c_str());
    if (!H)
      return false;
    while (dirent *E = ::readdir(H))
      if (E->d_name[0] != '.')
        Names.push_back(E->d_name);
    ::closedir(H);
    std::sort(Names.begin(), Names.end());
    return true;
  };
  auto IsDir = [](const std::string &P) {
    struct stat St;
    return ::stat(P.c_str(), &St) == 0 && S_ISDIR(St.st_mode);
  };
  auto Ends = [](const std::string &S, const char *Suffix) {
    std::string X(Suffix);
    return S.size() >= X.size() && S.compare(S.size() - X.size(), X.size(), X) == 0;
  };
  // A process's reports: its recording when there is one (re-analyzed), else its JSON.
  auto ReportsIn = [&](const std::string &D, const std::vector<std::string> &Names) {
    std::vector<std::string> Out;
    std::set<std::string> Recorded;
    for (const std::string &N : Names)
      if (Ends(N, ".swrec"))
        Recorded.insert(N.substr(0, N.size() - 6));
    for (const std::string &N : Names)
      if (Ends(N, ".swrec") || (Ends(N, ".json") && !Ends(N, ".trace.json") && !Recorded.count(N.substr(0, N.size() - 5))))
        Out.push_back(D + "/" + N);
    return Out;
  };
  std::vector<std::string> Names;
  if (!Entries(Dir, Names)) {
    Error = Dir + ": not a directory that can be read";
    return false;
  }
  std::vector<std::string> Subdirs;
  for (const std::string &N : Names)
    if (IsDir(Dir + "/" + N))
      Subdirs.push_back(N);
  if (!Subdirs.empty()) {
    for (const std::string &S : Subdirs) {
      std::vector<std::string> Inner;
      Entries(Dir + "/" + S, Inner);
      VerifyRun R;
      R.Files = ReportsIn(Dir + "/" + S, Inner);
      // verify's own runs leave their wall time beside the reports.
      if (FILE *F = std::fopen((Dir + "/" + S + "/wall-ms.txt").c_str(), "r")) {
        double W = -1;
        if (std::fscanf(F, "%lf", &W) == 1)
          R.WallMs = W;
        std::fclose(F);
      }
      if (!R.Files.empty())
        Runs.push_back(std::move(R));
    }
  } else {
    for (const std::string &F : ReportsIn(Dir, Names))
      Runs.push_back({{F}, -1});
  }
  if (Runs.empty()) {
    Error = Dir + ": no runtime reports (.json) or recordings (.swrec) in it or in its run folders";
    return false;
  }
  return true;
}

bool runInterleaved(const VerifyCommands &C, VerifyOptions &Opts, std::string &Error) {
  auto MakeDir = [&](const std::string &D) {
    if (::mkdir(D.c_str(), 0755) != 0 && errno != EEXIST) {
      Error = "cannot make '" + D + "': " + std::strerror(errno);
      return false;
    }
    return true;
  };
  if (!MakeDir(C.OutDir))
    return false;
  // Absolute: a side may run in another folder (--apply-fixes' worktree).
  char Real[PATH_MAX];
  if (!::realpath(C.OutDir.c_str(), Real)) {
    Error = "cannot resolve '" + C.OutDir + "': " + std::strerror(errno);
    return false;
  }
  const std::string Out = Real;
  if (!MakeDir(Out + "/before") || !MakeDir(Out + "/after"))
    return false;
  for (unsigned K = 1; K <= C.Runs; ++K)
    for (int Which = 0; Which < 2; ++Which) {
      const char *Name = Which == 0 ? "before" : "after";
      std::string Dir = Out + "/" + Name + "/run-" + std::to_string(K);
      if (!MakeDir(Dir))
        return false;
      std::vector<std::string> Argv = {C.Self, "run", "--out", Dir};
      if (C.ThresholdMs > 0)
        Argv.insert(Argv.end(), {"--threshold-ms", std::to_string(C.ThresholdMs)});
      Argv.push_back("--");
      const auto &Cmd = Which == 0 ? C.Before : C.After;
      Argv.insert(Argv.end(), Cmd.begin(), Cmd.end());
      const auto &Env = Which == 0 ? C.BeforeEnv : C.AfterEnv;
      std::string Log = Dir + "/run.log";
      auto T0 = std::chrono::steady_clock::now();
      pid_t Pid = ::fork();
      if (Pid < 0) {
        Error = std::string("cannot start a run: ") + std::strerror(errno);
        return false;
      }
      if (Pid == 0) {
        const std::string &Where = Which == 0 ? C.BeforeDir : C.AfterDir;
        if (!Where.empty() && ::chdir(Where.c_str()) != 0)
          ::_exit(126);
        for (const auto &[Key, Value] : Env)
          ::setenv(Key.c_str(), Value.c_str(), 1);
        int Fd = ::open(Log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (Fd >= 0) {
          ::dup2(Fd, 1);
          ::dup2(Fd, 2);
        }
        std::vector<char *> A;
        for (const std::string &S : Argv)
          A.push_back(const_cast<char *>(S.c_str()));
        A.push_back(nullptr);
        ::execv(C.Self.c_str(), A.data());
        ::_exit(127);
      }
      int Status = 0;
      while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
      }
      double WallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count();
      if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0) {
        Error = std::string("the ") + Name + " command failed in run " + std::to_string(K) + " (" +
                (WIFEXITED(Status) ? "exit code " + std::to_string(WEXITSTATUS(Status))
                                   : "signal " + std::to_string(WTERMSIG(Status))) +
                "): its output is in " + Log;
        return false;
      }
      std::ofstream(Dir + "/wall-ms.txt") << WallMs << "\n";
    }
  std::string Why;
  if (!runsInDirectory(Out + "/before", Opts.Before, Why) || !runsInDirectory(Out + "/after", Opts.After, Why)) {
    Error = Why + " (did the program make CUDA calls? a process that makes none writes no report)";
    return false;
  }
  return true;
}

namespace {

// The two sides' runs loaded, the after's paths mapped to the before's; or the exit code.
int loadSides(const VerifyOptions &Opts, Side &B, Side &A) {
  if (Opts.Before.empty() || Opts.After.empty())
    return fail("needs runs before and after the fix");
  {
    std::vector<std::string> Inputs;
    for (const auto *Side : {&Opts.Before, &Opts.After})
      for (const VerifyRun &R : *Side)
        Inputs.insert(Inputs.end(), R.Files.begin(), R.Files.end());
    if (std::string In = outputThatIsAnInput(Opts.Output, Inputs); !In.empty())
      return fail("the output '" + Opts.Output + "' is the input '" + In + "': refusing to overwrite it");
  }
  std::string Error;
  if (!loadSide(Opts.Before, B, Error) || !loadSide(Opts.After, A, Error))
    return fail(Error);
  mapSitePaths(A, Opts.PathMaps);  // the after build's paths as the before build's (another checkout)
  return 0;
}

// A site's blocked time in each run of a side (Site < 0: not on that side).
std::vector<double> blockedSamples(const Side &S, long Site) {
  std::vector<double> V;
  for (const auto &Run : S.BlockedMs) {
    auto It = Site < 0 ? Run.end() : Run.find(static_cast<std::size_t>(Site));
    V.push_back(It == Run.end() ? 0 : It->second);  // a run where the site did not block: 0
  }
  return V;
}

// Each site after (matched with its site before, or new), then each site before that is
// gone; biggest change first.
std::vector<SiteResult> compareSites(const Side &B, const Side &A, double MinEffectMs) {
  std::vector<long> Match = matchSites(B, A);
  std::vector<SiteResult> Results;
  std::vector<bool> BeforeMatched(B.Sites.size(), false);
  for (std::size_t I = 0; I < A.Sites.size(); ++I) {
    SiteResult R;
    R.After = A.Sites[I];
    R.InAfter = true;
    if (Match[I] >= 0) {
      R.Before = B.Sites[static_cast<std::size_t>(Match[I])];
      R.InBefore = true;
      BeforeMatched[static_cast<std::size_t>(Match[I])] = true;
    }
    R.D = compareSamples(blockedSamples(B, Match[I]), blockedSamples(A, static_cast<long>(I)), MinEffectMs);
    Results.push_back(std::move(R));
  }
  for (std::size_t J = 0; J < B.Sites.size(); ++J)
    if (!BeforeMatched[J]) {
      SiteResult R;
      R.Before = B.Sites[J];
      R.InBefore = true;
      R.D = compareSamples(blockedSamples(B, static_cast<long>(J)), blockedSamples(A, -1), MinEffectMs);
      Results.push_back(std::move(R));
    }
  std::stable_sort(Results.begin(), Results.end(),
                   [](const SiteResult &X, const SiteResult &Y) { return std::fabs(X.D.Delta) > std::fabs(Y.D.Delta); });
  return Results;
}

// One figure of the whole run compared: wall time (or CUDA span), blocked, host lost, GPU idle.
struct Whole {
  const char *Key, *Label;
  Difference D;
  bool Known;
};

// Each run's time blocked at all its sites.
std::vector<double> blockedTotals(const Side &S) {
  std::vector<double> Total;
  for (const auto &Run : S.BlockedMs) {
    double Sum = 0;
    for (const auto &[K, V] : Run)
      Sum += V;
    Total.push_back(Sum);
  }
  return Total;
}

std::vector<Whole> compareWholeRuns(const Side &B, const Side &A, double MinEffectMs) {
  std::vector<double> BTotal = blockedTotals(B), ATotal = blockedTotals(A);
  // The whole run: its own noise decides, with a floor of 1% of the before figure.
  auto WholeDiff = [&](const std::vector<double> &X, const std::vector<double> &Y) {
    return compareSamples(X, Y, std::max(MinEffectMs, 0.01 * mean(X)));
  };
  // Reports of runs verify did not make itself have no wall time: the CUDA span stands in.
  bool Wall = B.MeasuredWall && A.MeasuredWall;
  return {
      {Wall ? "wallMs" : "cudaSpanMs", Wall ? "wall time" : "CUDA span (first call to last return)",
       WholeDiff(B.WallMs, A.WallMs), B.HaveWall && A.HaveWall},
      {"blockedMs", "time blocked at call sites", WholeDiff(BTotal, ATotal), true},
      {"hostTimeLostMs", "host time lost", WholeDiff(B.HostLostMs, A.HostLostMs), true},
      {"gpuIdleMs", "GPU idle time", WholeDiff(B.GpuIdleMs, A.GpuIdleMs), !B.UntracedRuns && !A.UntracedRuns},
  };
}

// GPU idle time is the GPU's only where kernels were traced: in a run whose launches all
// went to non-blocking streams (not traced) it is the whole span. On the H200, making
// jacobi's streams non-blocking "added" 181 ms of GPU idle that way. Why it is not
// comparable ("": it is).
std::string idleNotComparable(const Side &B, const Side &A, const VerifyOptions &Opts, const Whole &Idle) {
  if (Idle.Known)
    return "";
  auto Of = [](unsigned N, std::size_t Of, const char *Side) {
    return std::to_string(N) + " of " + std::to_string(Of) + " " + Side + " run(s)";
  };
  std::string Which = B.UntracedRuns && A.UntracedRuns
                          ? Of(B.UntracedRuns, Opts.Before.size(), "before") + " and " + Of(A.UntracedRuns, Opts.After.size(), "after")
                          : B.UntracedRuns ? Of(B.UntracedRuns, Opts.Before.size(), "before")
                                           : Of(A.UntracedRuns, Opts.After.size(), "after");
  return "not comparable: no kernel was traced in " + Which +
         " (launches onto non-blocking streams are not traced); SYNCWATCH_MEASURE=all traces every kernel";
}

// What verify says: the sites, the whole run, the overall verdict.
struct Comparison {
  std::vector<SiteResult> Results;
  std::vector<Whole> Run;
  std::string IdleNotComparable, Overall;
  bool Slower = false;
  std::map<std::string, unsigned> Counts;
};

// The gate: slower beyond the noise in wall time, in the time blocked or in GPU idle time.
void overallVerdict(Comparison &C) {
  auto Is = [&](const Whole &W, const char *Verdict) { return W.Known && W.D.Verdict == Verdict; };
  C.Slower = Is(C.Run[0], "slower") || Is(C.Run[1], "slower") || Is(C.Run[3], "slower");
  C.Overall = C.Slower ? "slower" : (Is(C.Run[0], "saved") || Is(C.Run[1], "saved") || Is(C.Run[3], "saved"))
                                        ? "saved"
                                        : "no change";
  for (const SiteResult &R : C.Results)
    ++C.Counts[R.D.Verdict];
}

std::string siteLabel(const SiteResult &R) {
  if (!R.InBefore)
    return R.After.label() + " (new)";
  if (!R.InAfter)
    return R.Before.label() + " (gone)";
  std::string L = R.After.label();
  if (R.Before.File != R.After.File || R.Before.Line != R.After.Line)
    L += " (was :" + std::to_string(R.Before.Line) + ")";
  return L;
}

void writeVerifyJson(std::ostream &O, const VerifyOptions &Opts, const Comparison &C) {
  JsonWriter J(O);
  J.beginObject();
  J.field("tool", "syncwatch verify").field("version", SYNCWATCH_VERSION);
  J.field("runsBefore", static_cast<std::uint64_t>(Opts.Before.size()))
      .field("runsAfter", static_cast<std::uint64_t>(Opts.After.size()));
  J.field("verdict", C.Overall);
  auto Diff = [&](const Difference &D) {
    J.field("before", D.BeforeMean).field("after", D.AfterMean).field("delta", D.Delta);
    J.field("low", D.Low).field("high", D.High).field("verdict", D.Verdict);
  };
  J.key("run").beginObject();
  for (const Whole &W : C.Run)
    if (W.Known) {
      J.key(W.Key).beginObject();
      Diff(W.D);
      J.endObject();
    }
  J.endObject();
  if (!C.IdleNotComparable.empty())
    J.key("notComparable").beginObject().field("gpuIdleMs", C.IdleNotComparable).endObject();
  J.key("sites").beginArray();
  for (const SiteResult &R : C.Results) {
    const SiteId &S = R.InAfter ? R.After : R.Before;
    J.beginObject();
    J.field("rule", S.Rule).field("file", S.File).field("line", S.Line).field("function", S.Function).field("api", S.Api);
    if (R.InBefore && R.InAfter && R.Before.Line != R.After.Line)
      J.field("lineBefore", R.Before.Line);
    J.field("inBefore", R.InBefore).field("inAfter", R.InAfter);
    J.key("blockedMs").beginObject();
    Diff(R.D);
    J.endObject();
    J.endObject();
  }
  J.endArray();
  J.endObject();
  O << "\n";
}

void writeVerifyMarkdown(std::ostream &O, const VerifyOptions &Opts, Comparison &C) {
  O << "### syncwatch verify: " << C.Overall << " (" << Opts.Before.size() << " runs before, " << Opts.After.size()
    << " after, 95% intervals)\n\n";
  O << "| | before | after | change | 95% interval | verdict |\n|---|---|---|---|---|---|\n";  // a run's figures, then the sites
  for (const Whole &W : C.Run)
    if (W.Known)
      O << "| **" << W.Label << "** | " << ms(W.D.BeforeMean) << " | " << ms(W.D.AfterMean) << " | "
        << signedMs(W.D.Delta) << " | " << interval(W.D) << " | " << W.D.Verdict << " |\n";
  if (!C.IdleNotComparable.empty())
    O << "| **GPU idle time** | | | | | " << C.IdleNotComparable << " |\n";
  for (const SiteResult &R : C.Results)
    O << "| `" << siteLabel(R) << "` | " << ms(R.D.BeforeMean) << " | " << ms(R.D.AfterMean) << " | "
      << signedMs(R.D.Delta) << " | " << interval(R.D) << " | " << R.D.Verdict << " |\n";
  O << "\n" << C.Counts["saved"] << " site(s) saved, " << C.Counts["no change"] << " unchanged within noise, "
    << C.Counts["slower"] << " slower.\n";
}

// SARIF: one result a site (a warning when slower), the whole run's figures as properties.
void writeVerifySarif(std::ostream &O, const Comparison &C) {
  Report Out;
  Out.ToolName = "syncwatch verify";
  Out.ToolVersion = SYNCWATCH_VERSION;
  std::set<std::string> Rules;
  for (const SiteResult &R : C.Results) {
    const SiteId &S = R.InAfter ? R.After : R.Before;
    Finding F;
    F.Rule = S.Rule;
    F.Where.File = S.File;
    F.Where.Line = S.Line;
    F.Where.Column = 1;
    F.Function = S.Function;
    F.Level = R.D.Verdict == "slower" ? Severity::Warning : Severity::Note;
    F.Message = "'" + (S.Api.empty() ? std::string("the call") : S.Api) + "' blocked " + ms(R.D.BeforeMean) +
                " a run before, " + ms(R.D.AfterMean) + " after: " + sentence(R.D);
    F.Evidence = {{"syncwatch.verdict", R.D.Verdict},
                  {"syncwatch.beforeMs", evidenceNumber(R.D.BeforeMean)},
                  {"syncwatch.afterMs", evidenceNumber(R.D.AfterMean)},
                  {"syncwatch.deltaLowMs", evidenceNumber(R.D.Low)},
                  {"syncwatch.deltaHighMs", evidenceNumber(R.D.High)}};
    F.Fingerprint = S.Fingerprint;
    Out.Findings.push_back(std::move(F));
    Rules.insert(S.Rule);
  }
  for (const std::string &Id : Rules)
    if (const RuleInfo *I = findRule(Id))
      Out.RulesRun.push_back(I->Rule);
  for (const Whole &W : C.Run)
    if (W.Known) {
      Out.Figures.emplace_back(std::string(W.Key) + ".before", evidenceNumber(W.D.BeforeMean));
      Out.Figures.emplace_back(std::string(W.Key) + ".after", evidenceNumber(W.D.AfterMean));
      Out.Figures.emplace_back(std::string(W.Key) + ".verdict", W.D.Verdict);
    }
  if (!C.IdleNotComparable.empty())
    Out.Figures.emplace_back("gpuIdleMs.verdict", C.IdleNotComparable);
  Out.Figures.emplace_back("verdict", C.Overall);
  writeSarif(O, Out);
}

void writeVerifyText(std::ostream &O, const VerifyOptions &Opts, Comparison &C) {
  std::string Head = "syncwatch verify: " + std::to_string(Opts.Before.size()) + " run(s) before, " +
                     std::to_string(Opts.After.size()) + " after: " + C.Overall;
  O << Head << " (95% intervals from the repeats)\n";
  for (const Whole &W : C.Run)
    if (W.Known)
      O << "  " << W.Label << ": " << ms(W.D.BeforeMean) << " -> " << ms(W.D.AfterMean) << ", " << sentence(W.D)
        << "\n";
  if (!C.IdleNotComparable.empty())
    O << "  GPU idle time: " << C.IdleNotComparable << "\n";
  for (const SiteResult &R : C.Results)
    O << "  " << R.D.Verdict << std::string(10 - std::min<std::size_t>(9, R.D.Verdict.size()), ' ') << siteLabel(R)
      << ": " << ms(R.D.BeforeMean) << " -> " << ms(R.D.AfterMean) << " a run, " << sentence(R.D) << "\n";
  O << "syncwatch verify: " << C.Counts["saved"] << " site(s) saved, " << C.Counts["no change"]
    << " unchanged within noise, " << C.Counts["slower"] << " slower; " << (C.Slower ? "fails" : "passes")
    << " (exit 1 when slower beyond the noise)\n";
}

} // namespace

// Load both sides, compare each site and the whole run, then the verdict and the report.
int verifyRuns(const VerifyOptions &Opts) {
  Side B, A;
  if (int Rc = loadSides(Opts, B, A))
    return Rc;
  Comparison C;
  C.Results = compareSites(B, A, Opts.MinEffectMs);
  C.Run = compareWholeRuns(B, A, Opts.MinEffectMs);
  C.IdleNotComparable = idleNotComparable(B, A, Opts, C.Run[3]);
  overallVerdict(C);
  std::ostringstream O;
  if (Opts.Format == "json")
    writeVerifyJson(O, Opts, C);
  else if (Opts.Format == "markdown")
    writeVerifyMarkdown(O, Opts, C);
  else if (Opts.Format == "sarif")
    writeVerifySarif(O, C);
  else
    writeVerifyText(O, Opts, C);
  std::string Why;
  if (Opts.Output.empty() ? !writeStdout(O.str(), Why) : !writeFileAtomically(Opts.Output, O.str(), Why))
    return fail(Opts.Output.empty() ? Why : "cannot write '" + Opts.Output + "': " + Why + " (any old file is untouched)");
  return C.Slower ? 1 : 0;
}

} // namespace syncwatch::runtime
