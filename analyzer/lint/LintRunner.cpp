#include "LintRunner.h"
#include "ResultCache.h"
#include "RunGuard.h"
#include "../unit/GlobList.h"
#include "../unit/PreludePch.h"
#include "../unit/UnitRunner.h"
#include "../checks/CheckRegistry.h"

#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>

using namespace clang;

namespace syncwatch {
namespace {

// ClangTool's own adjusters, then syncwatch's: the command clang really runs.
tooling::ArgumentsAdjuster fullAdjuster(const LintOptions &Options) {
  return withClangToolAdjusters(lintAdjuster(Options));
}

// The units' options: the run's rules and check options, syncwatch's adjustments, a summary
// of each unit for the cross-unit phase.
UnitOptions unitOptionsOf(const LintOptions &Options, const std::vector<RuleId> &Rules) {
  UnitOptions U;
  U.Rules = Rules;
  U.Checking = Options.Checking;
  U.Adjust = lintAdjuster(Options);
  U.Summarize = Options.CrossUnit;
  return U;
}

// The result cache's key of a unit: its final commands and directories, the checks and
// their options, and for the second phase the other units' summaries it used (Slice).
std::string cacheKeyOf(const ResultCache &Cache, const UnitRunner &Runner, const LintOptions &Options,
                       const std::vector<tooling::CompileCommand> &Commands, const std::string &Slice) {
  std::vector<std::vector<std::string>> Args;
  std::vector<std::string> Dirs;
  for (const tooling::CompileCommand &C : Commands) {
    Args.push_back(Runner.finalArgs(C));
    Dirs.push_back(C.Directory);
  }
  std::string Checks;
  for (RuleId R : Runner.options().Rules)
    Checks += std::string(ruleInfo(R).Id) + ",";
  for (const auto &[Option, Value] : Options.Checking)
    Checks += Option + "=" + Value + ",";
  // The second phase's entry: the same unit with the other units' summaries it used.
  Checks += Options.CrossUnit ? ",CrossUnit=1" : ",CrossUnit=0";
  if (!Slice.empty())
    Checks += ",Summaries=" + Slice;
  return Cache.keyOf(Args, Dirs, Checks);
}

// One unit of the batch: refused before anything when it cannot be analyzed, taken from the
// result cache when it is there, else analyzed and stored.
UnitResult analyzeFile(const UnitRunner &Runner, ResultCache &Cache, const LintOptions &Options,
                       const std::string &File, const SummaryIndex *External = nullptr,
                       const std::string &Slice = "") {
  UnitResult Result;
  std::vector<tooling::CompileCommand> Commands = Runner.commandsOf(File, Result.Error);
  if (Result.Error)
    return Result;
  std::string Key;
  if (Cache.enabled()) {
    Key = cacheKeyOf(Cache, Runner, Options, Commands, Slice);
    if (std::optional<CacheEntry> Hit = Cache.lookup(Key, &Result.Deps)) {
      Result.Findings = std::move(Hit->Findings);
      Result.Summary = std::move(Hit->Summary);
      return Result;
    }
  }
  Result = Runner.analyze(File, Commands, External);
  if (!Key.empty() && !Result.Error && !Result.Cancelled && !Result.Deps.empty())
    Cache.store(Key, Result.Deps, Result.Findings, Result.Summary);
  return Result;
}

// Files sharing a command share one precompiled CUDA prelude (PreludePch.h). The cache is
// told every file's key before the first parse, so that it builds a PCH only for a command
// that more than one file uses. Null with --no-pch.
std::unique_ptr<PreludePchCache> planPreludePchs(const tooling::CompilationDatabase &DB,
                                                 const std::vector<std::string> &Files, const LintOptions &Options) {
  if (!Options.UsePch)
    return nullptr;
  auto Pchs = std::make_unique<PreludePchCache>();
  Pchs->plan(preludePchKeys(DB, Files, lintAdjuster(Options)));
  return Pchs;
}

// Each worker runs each parse on a thread of its own: two threads per worker. Under a
// thread limit (ulimit -u) LLVM aborts when pthread_create fails, so the threads that can
// start are counted first, and the run takes fewer workers, or none (parses on this
// thread, UnitOptions::ParseOnCallingThread), with a warning.
// No more workers than units: `-j 10000` on two files started thousands of threads
// (the probe below, then the pool) for two parses.
unsigned workersFor(const LintOptions &Options, std::size_t Units, UnitOptions &Run) {
  unsigned Workers = llvm::hardware_concurrency(Options.Jobs).compute_thread_count();
  Workers = static_cast<unsigned>(std::min<std::size_t>(Workers, std::max<std::size_t>(Units, 1)));
  unsigned CanStart = threadsThatCanStart(2 * Workers);
  if (CanStart < 2 * Workers) {
    unsigned Fewer = CanStart / 2;
    llvm::errs() << "syncwatch-lint: warning: only " << CanStart << " thread(s) could be started (a thread limit?): "
                 << (Fewer ? std::to_string(Fewer) + " worker(s) instead of " + std::to_string(Workers)
                           : std::string("parsing on the main thread, one file at a time"))
                 << "\n";
    Workers = Fewer;
    Run.ParseOnCallingThread = Fewer == 0;
  }
  return Workers;
}

// Calls Analyze(I) for every index in Units: on this thread when there are no workers
// (workersFor), else on a pool of that many threads, and returns when all are done.
template <typename Fn>
void forEachUnit(unsigned Workers, const std::vector<std::size_t> &Units, Fn &Analyze) {
  if (Workers == 0) {
    for (std::size_t I : Units)
      Analyze(I);
    return;
  }
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Workers));
  for (std::size_t I : Units)
    Pool.async([&, I] { Analyze(I); });
  Pool.wait();
}

// What every analysis of one run shares: the files, the options, the unit runner (the
// database, the rules, the NOLINT comments, the prelude PCHs), the result cache, the workers.
struct BatchRun {
  const std::vector<std::string> &Files;
  const LintOptions &Options;
  const UnitRunner &Runner;
  ResultCache &Cache;
  unsigned Workers;

  UnitResult analyze(std::size_t I, const SummaryIndex *External = nullptr, const std::string &Slice = "") const {
    return analyzeFile(Runner, Cache, Options, Files[I], External, Slice);
  }
};

// Phase one: every file alone, timed, with "[n/m] file" progress as each one ends.
void analyzeEachUnit(const BatchRun &U, std::vector<UnitResult> &PerFile) {
  std::atomic<unsigned> Done{0};
  std::mutex ProgressLock;
  auto AnalyzeOne = [&](std::size_t I) {
    auto Start = std::chrono::steady_clock::now();
    PerFile[I] = U.analyze(I);
    PerFile[I].Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    unsigned N = ++Done;
    if (U.Options.Progress) {
      std::lock_guard<std::mutex> Lock(ProgressLock);
      llvm::errs() << "[" << N << "/" << U.Files.size() << "] " << U.Files[I] << "\n";
    }
  };
  std::vector<std::size_t> All(U.Files.size());
  for (std::size_t I = 0; I < All.size(); ++I)
    All[I] = I;
  forEachUnit(U.Workers, All, AnalyzeOne);
}

// Phase two: every unit's summary (and other shards'), then the units that need them
// again, each with its slice of the index. A unit whose slice is empty - it calls no
// summarized function, and no other unit calls its functions with work in flight -
// keeps its first result. A unit analyzed again has a new summary (a call of another
// unit's function now leaves work, or drains it), which may change other units'
// slices: rounds go on while a slice changes, at most kCrossUnitRounds (a chain of
// calls through that many files is followed to its end). Returns how many units were
// analyzed again.
std::size_t crossUnitPhase(const BatchRun &U, std::vector<UnitResult> &PerFile) {
  constexpr unsigned kCrossUnitRounds = 4;
  const std::vector<std::string> &Files = U.Files;
  std::set<std::string> Here(Files.begin(), Files.end());
  std::vector<std::string> LastSlice(Files.size());
  std::vector<SummaryIndex> Slices(Files.size());
  std::set<std::size_t> Reanalyzed;
  for (unsigned Round = 0; Round < kCrossUnitRounds; ++Round) {
    SummaryIndex Index;
    for (const auto &[File, Summary] : U.Options.ImportedSummaries)
      if (!Here.count(File))
        Index.add(Summary);
    for (const UnitResult &R : PerFile)
      if (!R.Error)
        Index.add(R.Summary);
    std::vector<std::size_t> Again;
    for (std::size_t I = 0; I < Files.size(); ++I) {
      if (PerFile[I].Error)
        continue;
      SummaryIndex Slice = Index.restrictedTo(PerFile[I].Summary);
      std::string Text = Slice.text();
      if (Text == LastSlice[I])
        continue;
      LastSlice[I] = std::move(Text);
      Slices[I] = std::move(Slice);
      Again.push_back(I);
    }
    if (Again.empty())
      break;
    auto AnalyzeAgain = [&](std::size_t I) {
      UnitResult R = U.analyze(I, LastSlice[I].empty() ? nullptr : &Slices[I], LastSlice[I]);
      // The same parse cannot fail the second time unless the file changed meanwhile:
      // then the first result stands.
      if (!R.Error) {
        PerFile[I].Findings = std::move(R.Findings);
        PerFile[I].Summary = std::move(R.Summary);
      }
    };
    forEachUnit(U.Workers, Again, AnalyzeAgain);
    Reanalyzed.insert(Again.begin(), Again.end());
  }
  return Reanalyzed.size();
}

// The files' results, in the files' order, into the run's: errors, findings, counts, the
// slowest file, and the files the analysis read (sorted, real paths, once each).
void gatherResults(std::vector<UnitResult> &PerFile, const std::vector<std::string> &Files, LintResult &Result) {
  for (std::size_t I = 0; I < PerFile.size(); ++I) {
    UnitResult &R = PerFile[I];
    if (R.Error)
      Result.Errors.push_back(*R.Error);
    else
      ++Result.FilesAnalyzed;
    Result.Crashes += R.Crashed;
    if (R.Seconds > Result.SlowestSeconds) {
      Result.SlowestSeconds = R.Seconds;
      Result.SlowestFile = Files[I];
    }
    for (Finding &F : R.Findings)
      Result.Findings.push_back(std::move(F));
    if (!R.Error) {
      Result.FilesRead.push_back(Files[I]);
      Result.FilesRead.insert(Result.FilesRead.end(), R.Deps.begin(), R.Deps.end());
    }
  }
  realPathsSorted(Result.FilesRead);
}

} // namespace

std::vector<RuleId> enabledRules(const std::string &Checks) {
  GlobList Globs(Checks);
  std::vector<RuleId> Rules;
  for (const CheckFactory &F : registeredChecks())
    if (Globs.contains(ruleInfo(F.Rule).Id))
      Rules.push_back(F.Rule);
  return Rules;
}

LintResult runLint(const tooling::CompilationDatabase &DB, const std::vector<std::string> &Files,
                   const LintOptions &Options) {
  LintResult Result;
  Result.RulesRun = enabledRules(Options.Checks);
  std::vector<UnitResult> PerFile(Files.size());
  NoLintFilter NoLint;
  UnitOptions Unit = unitOptionsOf(Options, Result.RulesRun);
  std::unique_ptr<PreludePchCache> Pchs = planPreludePchs(DB, Files, Options);
  Unit.Pchs = Pchs.get();
  ResultCache Cache(Options.CacheDir);
  Result.Workers = workersFor(Options, Files.size(), Unit);
  UnitRunner Runner(DB, std::move(Unit), NoLint);
  BatchRun Units{Files, Options, Runner, Cache, Result.Workers};
  analyzeEachUnit(Units, PerFile);
  if (Options.CrossUnit) {
    Result.UnitsReanalyzed = crossUnitPhase(Units, PerFile);
    for (std::size_t I = 0; I < Files.size(); ++I)
      if (!PerFile[I].Error)
        Result.Summaries.emplace_back(Files[I], PerFile[I].Summary);
  }
  Result.CacheHits = Cache.hits();
  Result.CacheMisses = Cache.misses();
  Result.CacheProblem = Cache.problem();
  if (Pchs) {
    Result.PchsBuilt = Pchs->built();
    Result.PchFallbacks = Pchs->fallbacks();
  }
  gatherResults(PerFile, Files, Result);
  // A header included by several analyzed files reports the same finding once; the order
  // is total, so shards merged later give the same report (SarifMerge.h).
  sortEvidence(Result.Findings);
  sortFindings(Result.Findings);
  sortErrors(Result.Errors);
  return Result;
}

tooling::ArgumentsAdjuster lintAdjuster(const LintOptions &Options) {
  tooling::ArgumentsAdjuster A = hostSideAdjuster(Options.Host);
  if (!Options.ExtraArgs.empty())
    A = tooling::combineAdjusters(A, tooling::getInsertArgumentAdjuster(
                                         Options.ExtraArgs, tooling::ArgumentInsertPosition::END));
  return A;
}

std::vector<std::string> finalCommands(const tooling::CompilationDatabase &DB,
                                       const std::string &File, const LintOptions &Options) {
  // ClangTool's own adjusters first, as ClangTool::run applies them.
  tooling::ArgumentsAdjuster A = fullAdjuster(Options);
  std::vector<std::string> Lines;
  for (const tooling::CompileCommand &C : DB.getCompileCommands(File)) {
    std::string Line;
    llvm::raw_string_ostream OS(Line);
    bool First = true;
    for (const std::string &Arg : A(C.CommandLine, C.Filename)) {
      OS << (First ? "" : " ");
      First = false;
      if (Arg.find_first_of(" \t\"'\\$") == std::string::npos && !Arg.empty())
        OS << Arg;
      else
        llvm::sys::printArg(OS, Arg, /*Quote=*/true);
    }
    Lines.push_back(File + ": (in " + C.Directory + ") " + Line);
  }
  if (Lines.empty())
    Lines.push_back(File + ": no compile command");
  return Lines;
}

std::vector<std::string> selectShard(std::vector<std::string> Files, unsigned K, unsigned N) {
  std::sort(Files.begin(), Files.end());
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  std::vector<std::string> Out;
  if (N == 0 || K == 0 || K > N)
    return Out;
  for (std::size_t I = K - 1; I < Files.size(); I += N)
    Out.push_back(Files[I]);
  return Out;
}

} // namespace syncwatch
