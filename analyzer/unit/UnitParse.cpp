#include "UnitParse.h"
#include "FindingCollector.h"
#include "ParseHold.h"
#include "SystemBodies.h"
#include "../core/CrossUnit.h"
#include "../core/UnitScope.h"
#include "../checks/CheckRegistry.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {
namespace {

// Gathers the unit's facts from the MatchFinder's matches, once for all checks, and lets
// each enabled check judge them when the unit has been matched.
class UnitJudge : public MatchFinder::MatchCallback {
public:
  UnitJudge(std::vector<std::unique_ptr<SyncwatchCheck>> &Checks, DiagnosticSink &Sink, UnitSummary *Summary)
      : Checks(Checks), Sink(Sink), Summary(Summary) {}
  void run(const MatchFinder::MatchResult &R) override { Facts.observe(R); }
  void onStartOfTranslationUnit() override { Facts.reset(); }
  void onEndOfTranslationUnit() override {
    for (const std::unique_ptr<SyncwatchCheck> &C : Checks)
      C->judge(Facts, Sink);
    if (Summary) {
      // A file with several compile commands adds each parse's summary.
      UnitSummary U = summarizeUnit(Facts);
      Summary->Functions.insert(Summary->Functions.end(), U.Functions.begin(), U.Functions.end());
      Summary->Calls.insert(Summary->Calls.end(), U.Calls.begin(), U.Calls.end());
    }
  }
  UnitFacts Facts;

private:
  std::vector<std::unique_ptr<SyncwatchCheck>> &Checks;
  DiagnosticSink &Sink;
  UnitSummary *Summary;
};

// Counts compiler errors and keeps the first one for the message; everything else that
// clang would say about the file (its own warnings) stays quiet. Warnings are not even
// counted: clang prints "N warnings generated when compiling for host." on stderr for a
// client that counted some.
class ParseErrorCollector : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    if (Level < DiagnosticsEngine::Error)
      return;
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (First.empty()) {
      llvm::SmallString<256> Text;
      Info.FormatDiagnostic(Text);
      if (Info.hasSourceManager() && Info.getLocation().isValid()) {
        FirstInMainFile = Info.getSourceManager().isInMainFile(Info.getLocation());
        PresumedLoc P = Info.getSourceManager().getPresumedLoc(Info.getLocation());
        if (P.isValid())
          First = std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) + ":" +
                  std::to_string(P.getColumn()) + ": ";
      }
      First += Text.str().str();
    }
  }
  std::string First;
  bool FirstInMainFile = false;
};

// Between the parse and the checks, for syncwatch-lsp:
// - Scope: with the file's own preamble precompiled, only the declarations parsed now - the
//   file after its preamble - and the header helpers they call are traversed, as clangd
//   scopes its traversal: every declaration of the headers would otherwise be deserialized
//   from the PCH and walked at every edit (UnitScope.h). (The
//   server analyzes the whole unit, headers' findings too, on open, on save and when the
//   preamble changes: UnitOptions::MainFileScope.)
// - Cancel: an edit of the buffer makes this parse's result worthless. Returning false from
//   HandleTopLevelDecl ends clang's ParseAST there, before the rest of the file is parsed and
//   before HandleTranslationUnit runs the checks.
class UnitScopeConsumer : public ASTConsumer {
public:
  UnitScopeConsumer(std::unique_ptr<ASTConsumer> Inner, bool Scope, const std::atomic<bool> *Cancel)
      : Inner(std::move(Inner)), Scope(Scope), Cancel(Cancel) {}
  bool HandleTopLevelDecl(DeclGroupRef G) override {
    if (cancelled())
      return false;
    // The PCH hands its "interesting" declarations (the headers' function definitions, for
    // code generation) to the consumer as top-level ones too: those are not this parse's
    // (walking them read their bodies back from the PCH: two thirds of the checks' time on
    // ggml-cuda.cu). clangd skips them the same way.
    if (Scope)
      for (Decl *D : G)
        if (!D->isFromASTFile())
          Parsed.push_back(D);
    return Inner->HandleTopLevelDecl(G);
  }
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (cancelled())
      return;
    if (Scope)
      Ctx.setTraversalScope(scopeWithHelpers(Ctx, std::move(Parsed)));
    Inner->HandleTranslationUnit(Ctx);
  }

private:
  bool cancelled() const { return Cancel && Cancel->load(std::memory_order_relaxed); }
  std::unique_ptr<ASTConsumer> Inner;
  bool Scope;
  const std::atomic<bool> *Cancel;
  std::vector<Decl *> Parsed;
};

// Runs AtEnd once the checks have judged the unit, inside the parse, with its AST alive: a
// parse kept for the cross-unit phase (HeldParse.h) waits there for its owner.
class EndOfUnitHook : public MultiplexConsumer {
public:
  EndOfUnitHook(std::unique_ptr<ASTConsumer> Inner, std::function<void(ASTContext &)> AtEnd)
      : MultiplexConsumer(std::move(Inner)), AtEnd(std::move(AtEnd)) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    MultiplexConsumer::HandleTranslationUnit(Ctx);
    AtEnd(Ctx);
  }

private:
  std::function<void(ASTContext &)> AtEnd;
};

// What the frontend action reports back to the parse: the unit's LangOptions (token lengths
// in ranges), the AST being analyzed, and the files its parse read (for the result cache).
struct ParseState {
  const LangOptions *LO = nullptr;
  CurrentUnit Unit;
  std::vector<std::string> &Deps;
};

// The files a parse read, as real paths (a name relative to the entry's directory must not
// be resolved against this process's working directory), sorted, once each.
void collectDeps(CompilerInstance &CI, std::vector<std::string> &Deps) {
  SourceManager &SM = CI.getSourceManager();
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    StringRef Real = It->first.getFileEntry().tryGetRealPathName();
    SmallString<256> Path(Real.empty() ? It->first.getName() : Real);
    if (Real.empty()) {
      CI.getFileManager().makeAbsolutePath(Path);
      SmallString<256> Resolved;
      if (!llvm::sys::fs::real_path(Path, Resolved))
        Path = Resolved;
    }
    // Headers inside the prelude PCH carry the names they were precompiled under, which
    // need not exist as such: the command's key (its --cuda-path) covers them.
    if (llvm::sys::fs::exists(Path))
      Deps.push_back(std::string(Path));
  }
  std::sort(Deps.begin(), Deps.end());
  Deps.erase(std::unique(Deps.begin(), Deps.end()), Deps.end());
}

// Called at the end of a unit with its AST and compiler (null: nothing to do).
using AtEndOfUnit = std::function<void(ASTContext &, CompilerInstance &)>;

class CheckingAction : public ASTFrontendAction {
public:
  CheckingAction(MatchFinder &Finder, ParseState &State, bool ParsedOnly, const std::atomic<bool> *Cancel,
                 const AtEndOfUnit &AtEnd)
      : Finder(Finder), State(State), ParsedOnly(ParsedOnly), Cancel(Cancel), AtEnd(AtEnd) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    // The parse's errors are reported as the file's tool error (ParseErrorCollector): no
    // "N errors generated when compiling for host." from clang on stderr besides (clang's
    // CompilerInstance prints that count only with ShowCarets on).
    CI.getDiagnosticOpts().ShowCarets = false;
    State.LO = &CI.getLangOpts();
    State.Unit.Ctx = CI.hasASTContext() ? &CI.getASTContext() : nullptr;
    ++State.Unit.Generation;
    std::unique_ptr<ASTConsumer> Consumer = Finder.newASTConsumer();
    if (AtEnd)
      Consumer = std::make_unique<EndOfUnitHook>(std::move(Consumer),
                                                 [this, &CI](ASTContext &Ctx) { AtEnd(Ctx, CI); });
    if (ParsedOnly || Cancel)
      Consumer = std::make_unique<UnitScopeConsumer>(std::move(Consumer), ParsedOnly, Cancel);
    return skippingSystemBodies(std::move(Consumer), CI);  // SystemBodies.h
  }
  void EndSourceFileAction() override {
    State.Unit.Ctx = nullptr;
    if (getCompilerInstance().hasSourceManager())
      collectDeps(getCompilerInstance(), State.Deps);
  }

private:
  MatchFinder &Finder;
  ParseState &State;
  bool ParsedOnly;
  const std::atomic<bool> *Cancel;
  const AtEndOfUnit &AtEnd;
};

class CheckingActionFactory : public tooling::FrontendActionFactory {
public:
  CheckingActionFactory(MatchFinder &Finder, ParseState &State, bool ParsedOnly, const std::atomic<bool> *Cancel,
                        AtEndOfUnit AtEnd)
      : Finder(Finder), State(State), ParsedOnly(ParsedOnly), Cancel(Cancel), AtEnd(std::move(AtEnd)) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<CheckingAction>(Finder, State, ParsedOnly, Cancel, AtEnd);
  }

private:
  MatchFinder &Finder;
  ParseState &State;
  bool ParsedOnly;
  const std::atomic<bool> *Cancel;
  AtEndOfUnit AtEnd;
};

// The prelude PCH a parse used is rebuilt by every run: it is keyed by the command, not
// read as a dependency.
void dropPch(std::vector<std::string> &Deps, const PchUse &Pch) {
  if (Pch.Path.empty())
    return;
  Deps.erase(std::remove_if(Deps.begin(), Deps.end(),
                            [&](const std::string &D) {
                              return D == Pch.Path || llvm::sys::fs::equivalent(D, Pch.Path);
                            }),
             Deps.end());
}

std::vector<std::unique_ptr<SyncwatchCheck>> checksOf(const UnitOptions &Options) {
  std::vector<std::unique_ptr<SyncwatchCheck>> Checks;
  for (const CheckFactory &F : registeredChecks())
    if (std::find(Options.Rules.begin(), Options.Rules.end(), F.Rule) != Options.Rules.end())
      Checks.push_back(F.Create(CheckOptionsOf(Options.Checking, ruleInfo(F.Rule).Id)));
  return Checks;
}

// Each file is parsed on a thread of its own with a large stack (reserved, not used: clang's
// recursive descent needs depth only for deeply nested code) and an alternate signal stack,
// so that even a stack overflow - clang++ itself dies of one on 5,000 nested parentheses,
// bench's broken_nesting inputs - is a crash CrashRecoveryContext can recover from: the
// signal handler needs a stack to run on, and the overflowed one has none left.

class AlternateSignalStack {
public:
  AlternateSignalStack() : Memory(new char[Size]) {
    stack_t S{};
    S.ss_sp = Memory.get();
    S.ss_size = Size;
    S.ss_flags = 0;
    Installed = sigaltstack(&S, &Previous) == 0;
  }
  ~AlternateSignalStack() {
    if (Installed)
      sigaltstack(&Previous, nullptr);
  }
  void install() const {}  // constructing it (on first use in a thread) installs it

private:
  static constexpr std::size_t Size = 256 * 1024;
  std::unique_ptr<char[]> Memory;
  stack_t Previous{};
  bool Installed = false;
};

// A file system of this parse's own: ClangTool moves its working directory to each entry's
// `directory`. On the real file system that is the process's, which the other workers
// share: under -j2, units with relative -I paths failed at random (issue 11). This is what
// clangd does (one physical file system per worker). An editor's buffers lie over it.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fileSystemOf(const UnitOptions &Options) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = llvm::vfs::createPhysicalFileSystem();
  if (Options.Unsaved.empty())
    return FS;
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(FS);
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const auto &[Path, Text] : Options.Unsaved)
    Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
  Overlay->pushOverlay(Memory);
  return Overlay;
}

// The parse's outcome as the unit's result: a crash or compiler errors become its tool error.
void judgeOutcome(const std::string &File, bool Survived, int Status, const ParseErrorCollector &Errors,
                  UnitResult &Result) {
  if (!Survived) {
    Result.Crashed = true;
    Result.Error = ToolError{File, "the analysis crashed (a bug in clang or syncwatch; please "
                                   "report it with this file); its findings are not reported"};
    return;
  }
  if (Status != 0 || Errors.getNumErrors() > 0) {
    std::string Msg = "could not be parsed";
    if (Errors.getNumErrors() > 0)
      Msg += " (" + std::to_string(Errors.getNumErrors()) + " error" +
             (Errors.getNumErrors() == 1 ? "" : "s") + "; first: " + Errors.First + ")";
    Msg += "; its findings are not reported";
    Result.Error = ToolError{File, Msg};
    Result.ErrorInMainFile = Errors.FirstInMainFile;
  }
}

} // namespace

UnitResult parseUnit(const tooling::CompilationDatabase &DB, const std::string &File, const UnitOptions &Options,
                     NoLintFilter &NoLint, const PchUse &Pch, const SummaryIndex *External, ParseHold *Hold) {
  UnitResult Result;
  ParseState State{nullptr, {}, Result.Deps};
  FindingCollector Collector(NoLint, State.LO, State.Unit);
  std::vector<std::unique_ptr<SyncwatchCheck>> Checks = checksOf(Options);
  UnitJudge Judge(Checks, Collector, Options.Summarize ? &Result.Summary : nullptr);
  Judge.Facts.setExternal(External);
  MatchFinder Finder;
  Judge.Facts.registerMatchers(Finder, &Judge);
  if (Options.Summarize)
    Judge.Facts.registerUnitMatcher(Finder, &Judge);

  tooling::ClangTool Tool(DB, {File}, std::make_shared<PCHContainerOperations>(), fileSystemOf(Options));
  if (Options.Adjust)
    Tool.appendArgumentsAdjuster(Options.Adjust);
  if (!Pch.Path.empty())
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-Xclang", "-include-pch", "-Xclang", Pch.Path.c_str()}, tooling::ArgumentInsertPosition::END));
  if (!Pch.PreambleBytes.empty())  // the PCH holds the file's own first bytes: skip them
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-Xclang", "-preamble-bytes=" + Pch.PreambleBytes}, tooling::ArgumentInsertPosition::END));
  ParseErrorCollector Errors;
  Tool.setDiagnosticConsumer(&Errors);
  Tool.setPrintErrorMessage(false);
  // The unit judged again on the same AST with other units' summaries: the checks and the
  // findings start anew on the facts the matchers collected, with the calls into other
  // units taking the new summaries (UnitFacts::rejudgeWith), as a new parse of the
  // unchanged file would judge it.
  auto JudgeAgain = [&](const SummaryIndex *Slice) {
    Collector.Findings.clear();
    Result.Summary = {};
    Checks = checksOf(Options);
    Judge.Facts.rejudgeWith(Slice);
    Judge.onEndOfTranslationUnit();
  };
  // The first phase's second judgement, with the summaries known at the parse's end
  // (UnitOptions::KnownSlices); and a parse kept for the cross-unit phase: once the unit is
  // judged without errors, its first result is published and the parse waits, its AST
  // alive, to judge the unit again with each slice it is asked about.
  // (A file with several compile commands sums its parses' summaries: judged alone.)
  bool JudgeWithKnown = Options.KnownSlices && Options.Summarize && !External && DB.getCompileCommands(File).size() == 1;
  std::optional<KnownSlice> Known;
  AtEndOfUnit AtEnd;
  if (Hold || JudgeWithKnown)
    AtEnd = [&](ASTContext &, CompilerInstance &CI) {
      if (Errors.getNumErrors() > 0 || (Options.Cancel && Options.Cancel->load()))
        return;
      if (JudgeWithKnown)
        Known = Options.KnownSlices(Result.Summary);
      if (Known) {
        Result.Plain = Judgement{Collector.Findings, Result.Summary};
        Result.SliceUsed = Known->Text;
        JudgeAgain(&Known->Index);
      }
      if (!Hold)
        return;
      UnitResult First;
      First.Findings = Collector.Findings;
      First.Summary = Result.Summary;
      First.SliceUsed = Result.SliceUsed;
      First.Plain = Result.Plain;
      collectDeps(CI, First.Deps);
      dropPch(First.Deps, Pch);
      Hold->publish(std::move(First));
      while (std::optional<const SummaryIndex *> Slice = Hold->nextRequest()) {
        JudgeAgain(*Slice);
        UnitResult Again;
        Again.Findings = Collector.Findings;
        Again.Summary = Result.Summary;
        Hold->answer(std::move(Again));
      }
    };
  CheckingActionFactory Factory(Finder, State, Pch.MainFileOnly, Options.Cancel, std::move(AtEnd));
  int Status = 1;
  // A crash in clang or in a check (a file the front end chokes on) costs that file only:
  // its analysis is abandoned, the others are still analyzed and reported.
  llvm::CrashRecoveryContext Recovery;
  auto Parse = [&] {
    // Per thread; freed when the thread ends, also after a crash jumped out.
    static thread_local AlternateSignalStack Alt;
    Alt.install();
    Status = Tool.run(&Factory);
  };
  bool Survived = Options.ParseOnCallingThread ? Recovery.RunSafely(Parse)
                                               : Recovery.RunSafelyOnThread(Parse, ParseStackSize);
  if (Options.Cancel && Options.Cancel->load()) {  // whatever it found is of an old text
    Result.Cancelled = true;
    return Result;
  }
  judgeOutcome(File, Survived, Status, Errors, Result);
  if (Result.Error)
    return Result;
  Result.Findings = std::move(Collector.Findings);
  Result.MainFileOnly = Pch.MainFileOnly;
  dropPch(Result.Deps, Pch);
  return Result;
}

void enableCrashRecovery() {
  llvm::CrashRecoveryContext::Enable();
  // CrashRecoveryContext's handlers run on the faulting stack; make them use the thread's
  // alternate stack (AlternateSignalStack) so a stack overflow is recoverable too.
  for (int Signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) {
    struct sigaction Action;
    if (sigaction(Signal, nullptr, &Action) == 0 && Action.sa_handler != SIG_DFL &&
        Action.sa_handler != SIG_IGN) {
      Action.sa_flags |= SA_ONSTACK;
      sigaction(Signal, &Action, nullptr);
    }
  }
}

} // namespace syncwatch
