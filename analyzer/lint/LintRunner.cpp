#include "LintRunner.h"
#include "KnownSummaries.h"
#include "ResultCache.h"
#include "RunGuard.h"
#include "UnitOrder.h"
#include "../unit/GlobList.h"
#include "../unit/HeldParse.h"
#include "../unit/PreludePch.h"
#include "../unit/UnitRunner.h"
#include "../checks/CheckRegistry.h"

#include "clang/Tooling/Tooling.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

#ifdef __GLIBC__
#include <malloc.h>
#endif

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

// How one unit is analyzed when the result cache does not have it: given its commands.
using UnitAnalysis = std::function<UnitResult(const std::vector<tooling::CompileCommand> &)>;

// One unit of the batch: refused before anything when it cannot be analyzed, taken from the
// result cache when it is there, else analyzed (by Analyze, or a parse) and stored.
UnitResult analyzeFile(const UnitRunner &Runner, ResultCache &Cache, const LintOptions &Options,
                       const std::string &File, const SummaryIndex *External = nullptr,
                       const std::string &Slice = "", const UnitAnalysis &Analyze = nullptr) {
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
  Result = Analyze ? Analyze(Commands) : Runner.analyze(File, Commands, External);
  if (!Key.empty() && !Result.Error && !Result.Cancelled && !Result.Deps.empty()) {
    // Judged again with the summaries known at the parse's end: the plain judgement is the
    // first phase's entry; this one is the second phase's with that slice.
    if (Result.Plain) {
      Cache.store(Key, Result.Deps, Result.Plain->Findings, Result.Plain->Summary);
      Key = cacheKeyOf(Cache, Runner, Options, Commands, Result.SliceUsed);
    }
    Cache.store(Key, Result.Deps, Result.Findings, Result.Summary);
  }
  Result.Plain.reset();
  return Result;
}

// Returns the heap's free pages to the system (glibc's malloc_trim, over every arena).
void releaseFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// The process's resident memory now (/proc/self/statm), or 0 where it cannot be read.
std::size_t residentBytes() {
  std::ifstream Statm("/proc/self/statm");
  std::size_t Pages = 0, Resident = 0;
  if (!(Statm >> Pages >> Resident))
    return 0;
  return Resident * static_cast<std::size_t>(llvm::sys::Process::getPageSizeEstimate());
}

// Which first-phase parses are kept for the cross-unit phase (HeldParse.h): those that
// succeeded and have something to exchange with other units (a function of their own that
// others may call, or a call of another unit's), while the process's resident memory stays
// under the budget (--cross-unit-memory) - a kept unit's AST and compiler state are what it
// costs, 35 MiB for a small CUDA file, 300 MiB for one of AMGX's - and their threads (one
// each, waiting) under a cap. Under a thread limit (ulimit -u) a kept parse's thread would
// be missing for the next parse, and LLVM aborts when it cannot start one: a parse is kept
// only while the workers' next parses (and one more) can still start.
//
// With the first phase judging units with the summaries known at their parse's end
// (LintOptions::JudgeWithKnown), the units that still need a second look are mostly the
// first to end, which knew little: on AMGX, 6 of the 8 were among the first 8 of 166. A
// kept parse costs its memory, and every later parse the pages it must fault in anew and
// the heap trims (AMGX's first 24 units: 36.5 s with 6 parses kept, none used, against
// 32.5 s keeping none; all 166 at -j2: 1.195x a single pass keeping the first 10 to end,
// 1.118x keeping the first 6, 1.103x keeping none), so only the first Window units to end
// are considered.
class KeepBudget {
public:
  KeepBudget(std::size_t MiB, unsigned Workers, std::size_t Window)
      : Bytes(MiB << 20), Workers(Workers), Window(Window) {}
  bool enabled() const { return Bytes > 0; }
  bool admit(const UnitResult &First) {
    if (First.Error || (First.Summary.Functions.empty() && First.Summary.Calls.empty()))
      return false;
    if (++Considered > Window)
      return false;
    if (residentBytes() > Bytes)
      return false;
    unsigned Headroom = 2 * Workers + 2;
    if (threadsThatCanStart(Headroom) < Headroom)
      return false;
    if (++Kept <= kMaxKept)
      return true;
    --Kept;
    return false;
  }
  unsigned kept() const { return Kept; }
  bool overBudget() const { return residentBytes() > Bytes; }

private:
  static constexpr unsigned kMaxKept = 256;
  std::size_t Bytes;
  unsigned Workers;
  std::size_t Window;
  std::atomic<unsigned> Kept{0};
  std::atomic<std::size_t> Considered{0};
};

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
// With the cross-unit phase, the first phase keeps some units' parses alive (KeepBudget):
// the second judges those again instead of parsing them again.
struct BatchRun {
  const std::vector<std::string> &Files;
  const LintOptions &Options;
  const UnitRunner &Runner;
  // The same, parsing on the calling thread: a parse that may be kept runs on a thread of
  // its own with the parse's stack (HeldParse::start).
  const UnitRunner &OnItsThread;
  ResultCache &Cache;
  unsigned Workers;
  KeepBudget *Keep = nullptr;            // null: no parse is kept
  // The summaries known so far and the order units are taken in (LintOptions::
  // JudgeWithKnown); null: the database's order, each unit judged alone.
  KnownSummaries *Known = nullptr;
  UnitOrder *Order = nullptr;
  std::vector<std::unique_ptr<HeldParse>> Held;  // by file; each written by its own worker
  std::atomic<unsigned> JudgedAgain{0};  // second analyses served by a kept parse

  // Phase one: the unit alone; its parse kept when the budget admits it.
  UnitResult analyzeFirst(std::size_t I) {
    if (!Keep || !Keep->enabled())
      return analyzeFile(Runner, Cache, Options, Files[I]);
    UnitResult R = analyzeFile(Runner, Cache, Options, Files[I], nullptr, "",
                       [&](const std::vector<tooling::CompileCommand> &Commands) {
                         if (Commands.size() != 1)  // one parse per command: not kept
                           return Runner.analyze(Files[I], Commands);
                         std::optional<UnitResult> First;
                         Held[I] = HeldParse::start(OnItsThread, Files[I], Commands,
                                                    [&](const UnitResult &R) { return Keep->admit(R); }, First);
                         // No thread could start for it (a thread limit): nor would the
                         // parse's own, which LLVM aborts on; this worker's thread parses it.
                         return First ? std::move(*First) : OnItsThread.analyze(Files[I], Commands);
                       });
    // A kept parse's thread keeps its malloc arena, so the next parses start arenas of their
    // own, and what a finished parse freed there stays resident: AMGX's first 24 units
    // peaked at 4.4 GiB with 5 parses kept, against 1.0 without. Give it back once the
    // budget is passed (a trim over every arena costs about 80 ms there).
    if (Keep->kept() > 0 && Keep->overBudget())
      releaseFreedMemory();
    return R;
  }

  // Phase two: the unit with the other units' summaries it uses (Slice: their text).
  UnitResult analyzeAgain(std::size_t I, const SummaryIndex *External, const std::string &Slice) {
    return analyzeFile(Runner, Cache, Options, Files[I], External, Slice,
                       [&](const std::vector<tooling::CompileCommand> &Commands) {
                         if (Held[I]) {
                           if (std::optional<UnitResult> R = Held[I]->judgeAgain(External)) {
                             ++JudgedAgain;
                             return std::move(*R);
                           }
                           Held[I].reset();  // it crashed judging: a new parse decides
                         }
                         return Runner.analyze(Files[I], Commands, External);
                       });
  }

  // Lets every kept parse end: all at once, then waits for each.
  void releaseHeld() {
    for (std::unique_ptr<HeldParse> &H : Held)
      if (H)
        H->release();
    Held.clear();
  }
};

// Phase one: every file alone, timed, with "[n/m] file" progress as each one ends.
void analyzeEachUnit(BatchRun &U, std::vector<UnitResult> &PerFile) {
  std::atomic<unsigned> Done{0};
  std::mutex ProgressLock;
  auto AnalyzeOne = [&](std::size_t I) {
    auto Start = std::chrono::steady_clock::now();
    PerFile[I] = U.analyzeFirst(I);
    PerFile[I].Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    unsigned N = ++Done;
    if (U.Options.Progress) {
      std::lock_guard<std::mutex> Lock(ProgressLock);
      llvm::errs() << "[" << N << "/" << U.Files.size() << "] " << U.Files[I] << "\n";
    }
  };
  if (!U.Order) {
    std::vector<std::size_t> All(U.Files.size());
    for (std::size_t I = 0; I < All.size(); ++I)
      All[I] = I;
    forEachUnit(U.Workers, All, AnalyzeOne);
    return;
  }
  // Each worker takes the next unit as the last ones end (UnitOrder), and what each unit
  // tells the others is known to the units judged after it.
  auto Worker = [&] {
    while (std::optional<std::size_t> I = U.Order->next()) {
      AnalyzeOne(*I);
      if (!PerFile[*I].Error)
        U.Known->add(PerFile[*I].Summary);
      U.Order->done(PerFile[*I].Deps);
    }
  };
  if (U.Workers == 0)
    return Worker();
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(U.Workers));
  for (unsigned W = 0; W < U.Workers; ++W)
    Pool.async(Worker);
  Pool.wait();
}

// Phase two: every unit's summary (and other shards'), then the units that need them
// again, each with its slice of the index. A unit whose slice is empty - it calls no
// summarized function, and no other unit calls its functions with work in flight -
// keeps its first result. A unit analyzed again has a new summary (a call of another
// unit's function now leaves work, or drains it), which may change other units'
// slices: rounds go on while a slice changes, at most kCrossUnitRounds (a chain of
// calls through that many files is followed to its end). Returns the units analyzed again.
std::set<std::size_t> crossUnitPhase(BatchRun &U, std::vector<UnitResult> &PerFile) {
  constexpr unsigned kCrossUnitRounds = 4;
  const std::vector<std::string> &Files = U.Files;
  std::set<std::string> Here(Files.begin(), Files.end());
  std::vector<std::string> LastSlice(Files.size());
  for (std::size_t I = 0; I < Files.size(); ++I)  // judged with it at its parse's end
    LastSlice[I] = PerFile[I].SliceUsed;
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
      UnitResult R = U.analyzeAgain(I, LastSlice[I].empty() ? nullptr : &Slices[I], LastSlice[I]);
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
  return Reanalyzed;
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
  KnownSummaries Known;
  std::optional<UnitOrder> Order;
  if (Options.CrossUnit && Options.JudgeWithKnown) {
    std::set<std::string> Here(Files.begin(), Files.end());
    for (const auto &[File, Summary] : Options.ImportedSummaries)
      if (!Here.count(File))
        Known.add(Summary);
    Unit.KnownSlices = [&Known](const UnitSummary &S) { return Known.sliceFor(S); };
    Order.emplace(Files);
  }
  UnitOptions OnCallingThread = Unit;
  OnCallingThread.ParseOnCallingThread = true;
  UnitRunner Runner(DB, std::move(Unit), NoLint);
  UnitRunner OnItsThread(DB, std::move(OnCallingThread), NoLint);
  // No parse is kept where parses run on this thread (no thread could start).
  KeepBudget Keep(Options.CrossUnit && Result.Workers > 0 ? Options.KeepParsesMiB : 0, Result.Workers,
                  Order ? 2 * Result.Workers + 2 : Files.size());
  BatchRun Units{Files, Options, Runner, OnItsThread, Cache, Result.Workers, &Keep};
  if (Order) {
    Units.Known = &Known;
    Units.Order = &*Order;
  }
  Units.Held.resize(Files.size());
  analyzeEachUnit(Units, PerFile);
  if (Options.CrossUnit) {
    for (std::size_t I : crossUnitPhase(Units, PerFile))
      Result.ReanalyzedFiles.push_back(Files[I]);
    std::sort(Result.ReanalyzedFiles.begin(), Result.ReanalyzedFiles.end());
    Result.UnitsKept = Keep.kept();
    Result.UnitsJudgedAgain = Units.JudgedAgain;
    for (const UnitResult &R : PerFile)
      Result.UnitsJudgedWithKnown += !R.SliceUsed.empty();
    Units.releaseHeld();
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
