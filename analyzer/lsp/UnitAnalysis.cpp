#include "UnitAnalysis.h"

#include "../lint/CheckOptionsFile.h"
#include "../lint/CompileDatabase.h"
#include "../lint/TranslatingDatabase.h"
#include "../lint/ProfileSeverities.h"

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
  std::unique_ptr<clang::tooling::CompilationDatabase> DB = loadDatabaseFile(DbFile, Error);
  if (!DB) {
    R.NoCommand = "the compilation database cannot be used: " + Error;
    return R;
  }
  // Headers and files new since the build was configured get the nearest file's command,
  // as clangd gives them.
  DB = clang::tooling::inferMissingCompileCommands(std::move(DB));
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
  LintOptions Options;
  Options.Checks = Config.Checks.empty() ? Tidy.Checks : Config.Checks;
  Options.Checking = Tidy.Options;
  Options.Jobs = 1;
  Options.Host.ResourceDir = Config.ResourceDir;
  Options.Host.CudaPath = Config.CudaPath;
  Options.CrossUnit = false;  // one unit, as an editor sees it
  Options.Unsaved = {{Path, Text}};
  Options.KeptPchs = Config.Pchs;
  Options.MainFileScope = Config.MainFileScope;
  Options.Cancel = Config.Cancel;
  LintResult L = runLint(Translated, {Path}, Options);
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  if (L.Cancelled) {
    R.Cancelled = true;
    llvm::raw_string_ostream(R.Log) << "syncwatch-lsp: " << Path << ": cancelled after "
                                    << llvm::format("%.2f", R.Seconds) << " s (edited meanwhile)";
    return R;
  }
  R.MainFileOnly = L.MainFileOnly;
  R.FilesRead = std::move(L.FilesRead);
  R.Findings = std::move(L.Findings);
  if (Config.Profile)
    applyProfile(R.Findings, *Config.Profile);
  R.Errors = std::move(L.Errors);
  if (!ChecksError.empty())
    R.Errors.push_back({Path, ChecksError + "; its Checks and CheckOptions are not used"});
  R.Checks = Options.Checks;
  // The server's log: what each analysis took.
  llvm::raw_string_ostream(R.Log) << "syncwatch-lsp: " << Path << ": " << R.Findings.size() << " finding(s), "
                                  << R.Errors.size() << " error(s) in " << llvm::format("%.2f", R.Seconds) << " s"
                                  << (R.MainFileOnly ? " (the file's own code)" : " (the whole unit)") << " (the unit "
                                  << llvm::format("%.2f", L.SlowestSeconds) << " s)"
                                  << (L.PchFallbacks ? " (parsed again without the PCH)" : "");
  return R;
}

} // namespace syncwatch::lsp
