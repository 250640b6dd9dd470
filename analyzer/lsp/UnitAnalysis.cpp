#include "UnitAnalysis.h"

#include "../lint/CheckOptionsFile.h"
#include "../lint/CompileDatabase.h"
#include "../lint/LintRunner.h"
#include "../lint/RunGuard.h"
#include "../lint/TranslatingDatabase.h"
#include "../lint/ProfileSeverities.h"
#include "../unit/UnitRunner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace syncwatch::lsp {

std::string findDatabaseFile(const std::string &SourcePath) {
  llvm::SmallString<256> Dir(SourcePath);
  llvm::sys::path::remove_filename(Dir);
  for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    for (const char *Sub : {"", "build"}) {
      llvm::SmallString<256> Candidate(D);
      llvm::sys::path::append(Candidate, Sub, "compile_commands.json");
      if (llvm::sys::fs::is_regular_file(Candidate))
        return std::string(Candidate);
    }
  }
  return "";
}

std::shared_ptr<const clang::tooling::CompilationDatabase>
DatabaseCache::get(const std::string &File, std::string &Error, bool &Reloaded) {
  Reloaded = false;
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(File, Status)) {
    Error = File + ": " + EC.message();
    return nullptr;
  }
  std::int64_t Modified = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              Status.getLastModificationTime().time_since_epoch()).count();
  std::lock_guard<std::mutex> L(M);
  Loaded &Entry = Files[File];
  if (Entry.Database && Entry.Size == Status.getSize() && Entry.ModifiedNs == Modified)
    return Entry.Database;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB = loadDatabaseFile(File, Error);
  if (!DB) {
    Files.erase(File);
    return nullptr;
  }
  Reloaded = true;
  Entry = {Status.getSize(), Modified, clang::tooling::inferMissingCompileCommands(std::move(DB))};
  return Entry.Database;
}

namespace {

// The unit runner's options for an editor's buffer: the checks and their options, the
// host-side adjustments syncwatch-lint makes, the buffer over the disk with its preamble
// precompiled (Config.Pchs), the edit's scope and cancel.
UnitOptions bufferOptions(const std::string &Path, const std::string &Text, const AnalysisConfig &Config,
                          const std::string &Checks, const CheckOptionValues &Checking) {
  LintOptions Lint;  // the command-line knobs a buffer's analysis shares with syncwatch-lint
  Lint.Host.ResourceDir = Config.ResourceDir;
  Lint.Host.CudaPath = Config.CudaPath;
  UnitOptions Options;
  Options.Rules = enabledRules(Checks);
  Options.Checking = Checking;
  Options.Adjust = lintAdjuster(Lint);
  Options.Summarize = false;  // one unit, as an editor sees it
  // (the parse's own thread is one more thread: none may be left under a thread limit)
  Options.ParseOnCallingThread = threadsThatCanStart(1) == 0;
  Options.Unsaved = {{Path, Text}};
  Options.Pchs = Config.Pchs;
  Options.BufferPreamble = Config.Pchs != nullptr;
  Options.MainFileScope = Config.MainFileScope;
  Options.Cancel = Config.Cancel;
  return Options;
}

} // namespace

AnalysisResult analyzeBuffer(const std::string &Path, const std::string &Text, const AnalysisConfig &Config) {
  auto T0 = std::chrono::steady_clock::now();
  AnalysisResult R;
  std::string DbFile = Config.Database;
  if (!DbFile.empty() && llvm::sys::fs::is_directory(DbFile)) {
    llvm::SmallString<256> F(DbFile);
    llvm::sys::path::append(F, "compile_commands.json");
    DbFile = std::string(F);
  }
  if (DbFile.empty())
    DbFile = findDatabaseFile(Path);
  if (DbFile.empty()) {
    R.NoCommand = "no compile_commands.json in " + llvm::sys::path::parent_path(Path).str() +
                  " or a parent (or its build/): configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or set "
                  "syncwatch's compilationDatabase";
    return R;
  }
  std::string Error;
  bool Reloaded = true;
  std::shared_ptr<const clang::tooling::CompilationDatabase> DB;
  if (Config.Databases) {
    DB = Config.Databases->get(DbFile, Error, Reloaded);
  } else if (std::unique_ptr<clang::tooling::CompilationDatabase> Read = loadDatabaseFile(DbFile, Error)) {
    // Headers and files new since the build was configured get the nearest file's command,
    // as clangd gives them.
    DB = clang::tooling::inferMissingCompileCommands(std::move(Read));
  }
  if (!DB) {
    R.NoCommand = "the compilation database cannot be used: " + Error;
    return R;
  }
  R.DatabaseFile = DbFile;
  TranslationConfig Translation;
  Translation.ResourceDir = Config.ResourceDir;
  Translation.FallbackCudaPath = Config.CudaPath;
  Translation.CompatDir = Config.CompatDir;
  TranslatingDatabase Translated(*DB, Translation);
  if (Translated.getCompileCommands(Path).empty()) {
    R.NoCommand = DbFile + " has no compile command for this file";
    return R;
  }
  std::string ChecksError;
  TidyConfig Tidy = readNearestClangTidy(Path, ChecksError);
  std::string Checks = Config.Checks.empty() ? Tidy.Checks : Config.Checks;
  UnitOptions Options = bufferOptions(Path, Text, Config, Checks, Tidy.Options);
  if (Config.Pchs) {
    std::vector<std::string> Keys = preludePchKeys(Translated, {Path}, Options.Adjust);
    Config.Pchs->plan(Keys);
    Config.Pchs->plan(Keys);  // analyzed again at every edit: worth a PCH from the first run
  }
  NoLintFilter NoLint;
  NoLint.preload(Path, Text);
  UnitRunner Runner(Translated, std::move(Options), NoLint);
  UnitResult L;
  std::vector<clang::tooling::CompileCommand> Commands = Runner.commandsOf(Path, L.Error);
  auto TUnit = std::chrono::steady_clock::now();
  if (!L.Error)
    L = Runner.analyze(Path, Commands);
  double UnitSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - TUnit).count();
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  if (L.Cancelled) {
    R.Cancelled = true;
    llvm::raw_string_ostream(R.Log) << "syncwatch-lsp: " << Path << ": cancelled after "
                                    << llvm::format("%.2f", R.Seconds) << " s (edited meanwhile)";
    return R;
  }
  R.MainFileOnly = L.MainFileOnly;
  if (!L.Error) {
    R.FilesRead.push_back(Path);
    R.FilesRead.insert(R.FilesRead.end(), L.Deps.begin(), L.Deps.end());
    realPathsSorted(R.FilesRead);
  }
  R.Findings = std::move(L.Findings);
  sortEvidence(R.Findings);
  sortFindings(R.Findings);
  if (Config.Profile)
    applyProfile(R.Findings, *Config.Profile);
  if (L.Error)
    R.Errors.push_back(*L.Error);
  if (!ChecksError.empty())
    R.Errors.push_back({Path, ChecksError + "; its Checks and CheckOptions are not used"});
  R.Checks = Checks;
  // The server's log: what each analysis took.
  llvm::raw_string_ostream(R.Log) << "syncwatch-lsp: " << Path << ": " << R.Findings.size() << " finding(s), "
                                  << R.Errors.size() << " error(s) in " << llvm::format("%.2f", R.Seconds) << " s"
                                  << (R.MainFileOnly ? " (the file's own code)" : " (the whole unit)") << " (the unit "
                                  << llvm::format("%.2f", UnitSeconds) << " s)"
                                  << (Reloaded ? " (read " + DbFile + ")" : std::string())
                                  << (Config.Pchs && Config.Pchs->fallbacks() ? " (parsed again without the PCH)" : "");
  return R;
}

} // namespace syncwatch::lsp
