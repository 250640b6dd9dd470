#include "LintRunner.h"
#include "ResultCache.h"
#include "../core/CrossUnit.h"
#include "../core/UnitScope.h"

#include "../checks/CheckRegistry.h"
#include "NoLintFilter.h"
#include "TranslatingDatabase.h"
#include "PreludePch.h"
#include "SarifMerge.h"

#include "EnclosingFunction.h"
#include "MacroInvocations.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "RunGuard.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>

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

SourceSpan spanOf(SourceLocation Loc, CharSourceRange Range, const SourceManager &SM,
                  const LangOptions &LO) {
  SourceSpan S;
  if (Loc.isInvalid())
    return S;
  PresumedLoc P = SM.getPresumedLoc(Loc);
  if (P.isInvalid())
    return S;
  S.File = P.getFilename();
  // A header found through a relative -I is named relative to the entry's directory: the
  // working directory of this tool's own file system, not the process's.
  if (llvm::sys::path::is_relative(S.File)) {
    if (llvm::ErrorOr<std::string> Cwd = SM.getFileManager().getVirtualFileSystem().getCurrentWorkingDirectory()) {
      llvm::SmallString<256> Abs(S.File);
      llvm::sys::path::make_absolute(*Cwd, Abs);
      llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
      S.File = std::string(Abs);
    }
  }
  S.Line = P.getLine();
  S.Column = P.getColumn();
  if (Range.isValid()) {
    SourceLocation End = Range.getEnd();
    if (Range.isTokenRange())
      End = End.getLocWithOffset(Lexer::MeasureTokenLength(End, SM, LO));
    PresumedLoc E = SM.getPresumedLoc(End);
    if (E.isValid()) {
      S.EndLine = E.getLine();
      S.EndColumn = E.getColumn();
    }
  }
  return S;
}

FixIt fixOf(const FixItHint &H, const SourceManager &SM, const LangOptions &LO) {
  FixIt F;
  F.Where = spanOf(H.RemoveRange.getBegin(), H.RemoveRange, SM, LO);
  if (!H.RemoveRange.isValid() ||
      (H.RemoveRange.isCharRange() && H.RemoveRange.getBegin() == H.RemoveRange.getEnd())) {
    F.Where.EndLine = F.Where.Line;
    F.Where.EndColumn = F.Where.Column;
  }
  F.Text = H.CodeToInsert;
  return F;
}

// The AST being analyzed (a file's several compile commands are parsed one after another).
struct CurrentUnit {
  ASTContext *Ctx = nullptr;
  unsigned Generation = 0;
};

// Turns a check's diagnostics into Findings for one file, applying NOLINT.
class FindingCollector : public DiagnosticSink {
public:
  FindingCollector(NoLintFilter &NoLint, const LangOptions *&LO, CurrentUnit &Unit) : NoLint(NoLint), LO(LO), Unit(Unit) {}
  void emit(const CheckDiagnostic &D, const SourceManager &SM) override {
    static const LangOptions Default;
    const LangOptions &Opts = LO ? *LO : Default;
    Finding F;
    F.Rule = std::string(ruleInfo(D.Rule).Id);
    F.Level = D.Level;
    F.Where = spanOf(D.Loc, D.Range, SM, Opts);
    if (F.Where.known() && NoLint.suppressed(F.Where.File, F.Where.Line, F.Rule))
      return;
    F.Message = D.Message;
    for (const FixItHint &H : D.Fixes)
      F.Fixes.push_back(fixOf(H, SM, Opts));
    for (const CheckNote &N : D.Notes) {
      FindingNote Note{spanOf(N.Loc, CharSourceRange(), SM, Opts), N.Message, {}};
      if (N.Loc.isInvalid() && !N.File.empty())
        Note.Where = SourceSpan{N.File, N.Line, 1, 0, 0};  // in another unit (CrossUnit.h)
      for (const FixItHint &H : N.Fixes)
        Note.SuggestedFixes.push_back(fixOf(H, SM, Opts));
      F.Notes.push_back(std::move(Note));
    }
    F.Evidence = D.Evidence;
    if (Unit.Ctx) {
      if (!Functions || FunctionsOf != Unit.Generation) {
        Functions = std::make_unique<EnclosingFunctions>(*Unit.Ctx);
        FunctionsOf = Unit.Generation;
      }
      if (const FunctionName *Fn = Functions->at(D.Loc)) {
        F.Function = Fn->Qualified;
        F.MangledFunction = Fn->Mangled;
      }
      if (!Macros || MacrosOf != Unit.Generation) {
        Macros = std::make_unique<MacroInvocations>(*Unit.Ctx);
        MacrosOf = Unit.Generation;
      }
      std::tie(F.ContextLine, F.ContextEndLine) = Macros->linesAround(D.Loc);
    }
    Findings.push_back(std::move(F));
  }
  std::vector<Finding> Findings;

private:
  NoLintFilter &NoLint;
  const LangOptions *&LO;
  CurrentUnit &Unit;
  std::unique_ptr<EnclosingFunctions> Functions;  // built at the unit's first finding
  unsigned FunctionsOf = 0;
  std::unique_ptr<MacroInvocations> Macros;  // likewise
  unsigned MacrosOf = 0;
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
//   preamble changes: LintOptions::MainFileScope.)
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

// Keeps the LangOptions of the unit being analyzed, for token lengths in ranges, and the
// files its parse read (for the result cache).
class LangOptionsAction : public ASTFrontendAction {
public:
  LangOptionsAction(MatchFinder &Finder, const LangOptions *&LO, CurrentUnit &Unit, std::vector<std::string> &Deps,
                    bool ParsedOnly, const std::atomic<bool> *Cancel)
      : Finder(Finder), LO(LO), Unit(Unit), Deps(Deps), ParsedOnly(ParsedOnly), Cancel(Cancel) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    // The parse's errors are reported as the file's tool error (ParseErrorCollector): no
    // "N errors generated when compiling for host." from clang on stderr besides (clang's
    // CompilerInstance prints that count only with ShowCarets on).
    CI.getDiagnosticOpts().ShowCarets = false;
    LO = &CI.getLangOpts();
    Unit.Ctx = CI.hasASTContext() ? &CI.getASTContext() : nullptr;
    ++Unit.Generation;
    if (ParsedOnly || Cancel)
      return std::make_unique<UnitScopeConsumer>(Finder.newASTConsumer(), ParsedOnly, Cancel);
    return Finder.newASTConsumer();
  }
  void EndSourceFileAction() override {
    Unit.Ctx = nullptr;
    CompilerInstance &CI = getCompilerInstance();
    if (!CI.hasSourceManager())
      return;
    SourceManager &SM = CI.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      // The real path the file was opened at: a name relative to the entry's directory
      // must not be resolved against this process's working directory.
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

private:
  MatchFinder &Finder;
  const LangOptions *&LO;
  CurrentUnit &Unit;
  std::vector<std::string> &Deps;
  bool ParsedOnly;
  const std::atomic<bool> *Cancel;
};

class LangOptionsActionFactory : public tooling::FrontendActionFactory {
public:
  LangOptionsActionFactory(MatchFinder &Finder, const LangOptions *&LO, CurrentUnit &Unit, std::vector<std::string> &Deps,
                           bool ParsedOnly, const std::atomic<bool> *Cancel)
      : Finder(Finder), LO(LO), Unit(Unit), Deps(Deps), ParsedOnly(ParsedOnly), Cancel(Cancel) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<LangOptionsAction>(Finder, LO, Unit, Deps, ParsedOnly, Cancel);
  }

private:
  MatchFinder &Finder;
  const LangOptions *&LO;
  CurrentUnit &Unit;
  std::vector<std::string> &Deps;
  bool ParsedOnly;
  const std::atomic<bool> *Cancel;
};

struct FileResult {
  std::vector<Finding> Findings;
  UnitSummary Summary;             // what the unit tells the others (CrossUnit.h)
  std::vector<std::string> Deps;   // every file the parse read
  std::optional<ToolError> Error;
  bool Crashed = false;
  bool ErrorInMainFile = false;  // the first compiler error is in the file itself
  bool MainFileOnly = false;     // only the declarations after the preamble were analyzed
  bool Cancelled = false;        // LintOptions::Cancel stopped it: no result
  double Seconds = 0;
};

// Each file is parsed on a thread of its own with a large stack (reserved, not used: clang's
// recursive descent needs depth only for deeply nested code) and an alternate signal stack,
// so that even a stack overflow - clang++ itself dies of one on 5,000 nested parentheses,
// bench's broken_nesting inputs - is a crash CrashRecoveryContext can recover from: the
// signal handler needs a stack to run on, and the overflowed one has none left.
constexpr unsigned ParseStackSize = 64u << 20;

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

FileResult analyzeOnce(const tooling::CompilationDatabase &DB, const std::string &File,
                       const std::vector<RuleId> &Rules, const LintOptions &Options,
                       NoLintFilter &NoLint, const std::string &Pch, const SummaryIndex *External,
                       const std::string &PreambleBytes = "", bool MainFileOnly = false) {
  FileResult Result;
  const LangOptions *LO = nullptr;
  CurrentUnit Unit;
  FindingCollector Collector(NoLint, LO, Unit);
  std::vector<std::unique_ptr<SyncwatchCheck>> Checks;
  for (const CheckFactory &F : registeredChecks())
    if (std::find(Rules.begin(), Rules.end(), F.Rule) != Rules.end())
      Checks.push_back(F.Create(CheckOptionsOf(Options.Checking, ruleInfo(F.Rule).Id)));
  UnitJudge Judge(Checks, Collector, Options.CrossUnit ? &Result.Summary : nullptr);
  Judge.Facts.setExternal(External);
  MatchFinder Finder;
  Judge.Facts.registerMatchers(Finder, &Judge);

  // A file system of this tool's own: ClangTool moves its working directory to each entry's
  // `directory`. On the real file system that is the process's, which the other workers
  // share: under -j2, units with relative -I paths failed at random (issue 11). This is
  // what clangd does (one physical file system per worker).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = llvm::vfs::createPhysicalFileSystem();
  if (!Options.Unsaved.empty()) {
    // An editor's buffers over the disk (syncwatch-lsp): the same tool, another text.
    auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(FS);
    auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    for (const auto &[Path, Text] : Options.Unsaved)
      Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
    Overlay->pushOverlay(Memory);
    FS = Overlay;
  }
  tooling::ClangTool Tool(DB, {File}, std::make_shared<PCHContainerOperations>(), FS);
  Tool.appendArgumentsAdjuster(lintAdjuster(Options));
  if (!Pch.empty())
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-Xclang", "-include-pch", "-Xclang", Pch.c_str()}, tooling::ArgumentInsertPosition::END));
  if (!PreambleBytes.empty())  // the PCH holds the file's own first bytes: skip them
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-Xclang", "-preamble-bytes=" + PreambleBytes}, tooling::ArgumentInsertPosition::END));
  ParseErrorCollector Errors;
  Tool.setDiagnosticConsumer(&Errors);
  Tool.setPrintErrorMessage(false);
  LangOptionsActionFactory Factory(Finder, LO, Unit, Result.Deps, MainFileOnly, Options.Cancel);
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
  if (!Survived) {
    Result.Crashed = true;
    Result.Error = ToolError{File, "the analysis crashed (a bug in clang or syncwatch; please "
                                   "report it with this file); its findings are not reported"};
    return Result;
  }
  if (Status != 0 || Errors.getNumErrors() > 0) {
    std::string Msg = "could not be parsed";
    if (Errors.getNumErrors() > 0)
      Msg += " (" + std::to_string(Errors.getNumErrors()) + " error" +
             (Errors.getNumErrors() == 1 ? "" : "s") + "; first: " + Errors.First + ")";
    Msg += "; its findings are not reported";
    Result.Error = ToolError{File, Msg};
    Result.ErrorInMainFile = Errors.FirstInMainFile;
    return Result;
  }
  Result.Findings = std::move(Collector.Findings);
  Result.MainFileOnly = MainFileOnly;
  // The shared prelude PCH is rebuilt by every run: it is keyed by the command, not read.
  if (!Pch.empty())
    Result.Deps.erase(std::remove_if(Result.Deps.begin(), Result.Deps.end(),
                                     [&](const std::string &D) {
                                       return D == Pch || llvm::sys::fs::equivalent(D, Pch);
                                     }),
                      Result.Deps.end());
  return Result;
}

// ClangTool's own adjusters, then syncwatch's: the command clang really runs.
tooling::ArgumentsAdjuster fullAdjuster(const LintOptions &Options) {
  return tooling::combineAdjusters(
      tooling::combineAdjusters(tooling::getClangStripOutputAdjuster(),
                                tooling::getClangSyntaxOnlyAdjuster()),
      tooling::combineAdjusters(tooling::getClangStripDependencyFileAdjuster(),
                                lintAdjuster(Options)));
}

FileResult analyzeFile(const tooling::CompilationDatabase &DB, const std::string &File,
                       const std::vector<RuleId> &Rules, const LintOptions &Options,
                       NoLintFilter &NoLint, PreludePchCache *Pchs, ResultCache *Cache,
                       const SummaryIndex *External = nullptr, const std::string &Slice = "") {
  FileResult Result;
  // A FIFO, a device or a directory named as a source would hang or confuse the parse
  // (clang waits on a FIFO forever): a CI tool refuses what is not a regular file.
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(File, St) && St.type() != llvm::sys::fs::file_type::regular_file) {
    Result.Error = ToolError{File, "is not a regular file (a FIFO, a device or a directory); it was not analyzed"};
    return Result;
  }
  std::vector<tooling::CompileCommand> Commands = DB.getCompileCommands(File);
  if (Commands.empty()) {
    Result.Error = ToolError{File, "no compile command for this file in the compilation "
                                   "database; it was not analyzed"};
    return Result;
  }
  for (const tooling::CompileCommand &C : Commands)
    if (!llvm::sys::fs::is_directory(C.Directory)) {
      Result.Error = ToolError{File, "its compile command's directory '" + C.Directory +
                                         "' does not exist (a database from another machine? "
                                         "regenerate it, or create the build directory); it was not analyzed"};
      return Result;
    }
  if (const auto *T = dynamic_cast<const TranslatingDatabase *>(&DB)) {
    std::string Why = T->translationError(File);
    if (!Why.empty()) {
      Result.Error = ToolError{File, Why + "; it was not analyzed"};
      return Result;
    }
  }
  std::string Key;
  if (Cache && Cache->enabled()) {
    std::vector<std::vector<std::string>> Args;
    std::vector<std::string> Dirs;
    for (const tooling::CompileCommand &C : Commands) {
      Args.push_back(fullAdjuster(Options)(C.CommandLine, C.Filename));
      Dirs.push_back(C.Directory);
    }
    std::string Checks;
    for (RuleId R : Rules)
      Checks += std::string(ruleInfo(R).Id) + ",";
    for (const auto &[Option, Value] : Options.Checking)
      Checks += Option + "=" + Value + ",";
    // The second phase's entry: the same unit with the other units' summaries it used.
    Checks += Options.CrossUnit ? ",CrossUnit=1" : ",CrossUnit=0";
    if (!Slice.empty())
      Checks += ",Summaries=" + Slice;
    Key = Cache->keyOf(Args, Dirs, Checks);
    if (std::optional<CacheEntry> Hit = Cache->lookup(Key, &Result.Deps)) {
      Result.Findings = std::move(Hit->Findings);
      Result.Summary = std::move(Hit->Summary);
      return Result;
    }
  }
  std::string Pch, PreambleBytes;
  bool Preamble = false, PreambleNew = false;
  if (Pchs && Commands.size() == 1) {
    std::vector<std::string> Args = fullAdjuster(Options)(Commands[0].CommandLine, Commands[0].Filename);
    // An editor's buffer (syncwatch-lsp): the file's own preamble - its leading #includes
    // and #defines - precompiled once and reused while those lines stay as they are.
    if (Options.KeptPchs)
      for (const auto &[Path, Text] : Options.Unsaved)
        if (Path == File) {
          Pch = Pchs->preamblePchFor(Args, Commands[0].Filename, Commands[0].Directory, Text, PreambleBytes,
                                     &PreambleNew);
          Preamble = !Pch.empty();
        }
    if (Pch.empty())
      Pch = Pchs->pchFor(PreludePchCache::keyOf(Args, Commands[0].Filename, Commands[0].Directory), Args,
                         Commands[0].Filename, Commands[0].Directory);
  }
  // (a new preamble: the headers' findings may have changed with it, the whole unit then)
  Result = analyzeOnce(DB, File, Rules, Options, NoLint, Pch, External, Preamble ? PreambleBytes : "",
                       Preamble && Options.MainFileScope && !PreambleNew);
  // (with the file's preamble in the PCH, an error anywhere may be the PCH's: a header
  // included twice that has no include guard)
  if (!Pch.empty() && Result.Error && !Result.Crashed && !Result.Cancelled && (Preamble || !Result.ErrorInMainFile)) {
    // An error outside the file may come from the PCH (a header changed since it was
    // built, a flag it cannot take): the plain parse decides. Errors in the file itself
    // are the file's.
    Pchs->noteFallback();
    if (Preamble)
      Pchs->forgetPreamble(Commands[0].Filename);
    Result = analyzeOnce(DB, File, Rules, Options, NoLint, "", External);
  }
  if (!Key.empty() && !Result.Error && !Result.Cancelled && !Result.Deps.empty())
    Cache->store(Key, Result.Deps, Result.Findings, Result.Summary);
  return Result;
}

// Files sharing a command share one precompiled CUDA prelude (PreludePch.h). The cache is
// told every file's key before the first parse, so that it builds a PCH only for a command
// that more than one file uses. Null with --no-pch.
PreludePchCache *planPreludePchs(const tooling::CompilationDatabase &DB, const std::vector<std::string> &Files,
                                 const LintOptions &Options, std::unique_ptr<PreludePchCache> &OwnPchs) {
  if (!Options.UsePch)
    return nullptr;
  if (!Options.KeptPchs)
    OwnPchs = std::make_unique<PreludePchCache>();
  PreludePchCache *Pchs = Options.KeptPchs ? Options.KeptPchs : OwnPchs.get();
  std::vector<std::string> Keys;
  tooling::ArgumentsAdjuster A = fullAdjuster(Options);
  for (const std::string &F : Files) {
    std::vector<tooling::CompileCommand> C = DB.getCompileCommands(F);
    if (C.size() == 1)
      Keys.push_back(PreludePchCache::keyOf(A(C[0].CommandLine, C[0].Filename), C[0].Filename, C[0].Directory));
  }
  Pchs->plan(Keys);
  if (Options.KeptPchs)
    Pchs->plan(Keys);  // analyzed again at every edit: worth a PCH from the first run
  return Pchs;
}

// Each worker runs each parse on a thread of its own: two threads per worker. Under a
// thread limit (ulimit -u) LLVM aborts when pthread_create fails, so the threads that can
// start are counted first, and the run takes fewer workers, or none (parses on this
// thread, Run.ParseOnCallingThread), with a warning.
// No more workers than units: `-j 10000` on two files started thousands of threads
// (the probe below, then the pool) for two parses.
unsigned workersFor(const LintOptions &Options, std::size_t Units, LintOptions &Run) {
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

// What every analysis of one run shares: the database and files, the rules, the options
// (as workersFor adjusted them), the NOLINT comments, the prelude PCHs and the result cache.
struct UnitRun {
  const tooling::CompilationDatabase &DB;
  const std::vector<std::string> &Files;
  const std::vector<RuleId> &Rules;
  const LintOptions &Options;
  NoLintFilter &NoLint;
  PreludePchCache *Pchs;
  ResultCache &Cache;
  unsigned Workers;

  FileResult analyze(std::size_t I, const SummaryIndex *External = nullptr, const std::string &Slice = "") const {
    return analyzeFile(DB, Files[I], Rules, Options, NoLint, Pchs, &Cache, External, Slice);
  }
};

// Phase one: every file alone, timed, with "[n/m] file" progress as each one ends.
void analyzeEachUnit(const UnitRun &U, std::vector<FileResult> &PerFile) {
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
std::size_t crossUnitPhase(const UnitRun &U, std::vector<FileResult> &PerFile) {
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
    for (const FileResult &R : PerFile)
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
      FileResult R = U.analyze(I, LastSlice[I].empty() ? nullptr : &Slices[I], LastSlice[I]);
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
void gatherResults(std::vector<FileResult> &PerFile, const std::vector<std::string> &Files, LintResult &Result) {
  for (std::size_t I = 0; I < PerFile.size(); ++I) {
    FileResult &R = PerFile[I];
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
    Result.MainFileOnly |= R.MainFileOnly;
    Result.Cancelled |= R.Cancelled;
    if (!R.Error) {
      Result.FilesRead.push_back(Files[I]);
      Result.FilesRead.insert(Result.FilesRead.end(), R.Deps.begin(), R.Deps.end());
    }
  }
  for (std::string &F : Result.FilesRead) {
    llvm::SmallString<256> Real;
    if (!llvm::sys::fs::real_path(F, Real))
      F = std::string(Real);
  }
  std::sort(Result.FilesRead.begin(), Result.FilesRead.end());
  Result.FilesRead.erase(std::unique(Result.FilesRead.begin(), Result.FilesRead.end()), Result.FilesRead.end());
}

} // namespace

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
  std::vector<FileResult> PerFile(Files.size());
  NoLintFilter NoLint;
  std::unique_ptr<PreludePchCache> OwnPchs;
  PreludePchCache *Pchs = planPreludePchs(DB, Files, Options, OwnPchs);
  // (an editor's unsaved text is never cached: the cache keys the disk's contents)
  ResultCache Cache(Options.Unsaved.empty() ? Options.CacheDir : std::string());
  for (const auto &[Path, Text] : Options.Unsaved)
    NoLint.preload(Path, Text);
  LintOptions Run = Options;
  Result.Workers = workersFor(Options, Files.size(), Run);
  UnitRun Units{DB, Files, Result.RulesRun, Run, NoLint, Pchs, Cache, Result.Workers};
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
