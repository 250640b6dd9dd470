// syncwatch-lint: syncwatch's checks over a compilation database, for CI.
//   syncwatch-lint -p build/                      every file in build/compile_commands.json
//   syncwatch-lint -p build/ src/a.cu src/b.cu    those files, with the database's flags
//   syncwatch-lint file.cu -- -Iinclude           files with flags given after --
//   syncwatch-lint -p build/ --shard=2/4          the 2nd quarter of the files (CI matrix)
//   syncwatch-lint merge s1.sarif s2.sarif ...    one SARIF from the shards' (identical to
//                                                 an unsharded run's)
// nvcc, g++ and clang entries of the database are translated into clang host-side
// commands (NvccTranslation.h); docs/ci.md and docs/nvcc-compat.md tell what changes.
// Exit: 0 clean, 1 findings at or above --fail-on, 2 tool error (a file that does not
// parse, a missing database, an unwritable report); other files are still reported.
#include "BaselineFilter.h"
#include "CheckOptionsFile.h"
#include "../checks/PageableAsyncCopyCheck.h"
#include "CompileDatabase.h"
#include "ProfileSeverities.h"
#include "Fixes.h"
#include "InstallLayout.h"
#include "LintRunner.h"
#include "../unit/UnitParse.h"
#include "NvccTranslation.h"
#include "TranslatingDatabase.h"
#include "SarifMerge.h"

#include "syncwatch/fingerprint.h"
#include "syncwatch/report.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "syncwatch/file_output.h"
#include "syncwatch/json_limits.h"
#include "RunGuard.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <iostream>
#include <sstream>

using namespace llvm;
using namespace clang::tooling;

namespace {

cl::OptionCategory Category("syncwatch-lint options");

cl::list<std::string> Sources(cl::Positional, cl::desc("[<file> ...]"), cl::cat(Category));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory holding compile_commands.json "
                                             "(or the path of that file)"),
                               cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> Checks("checks",
                            cl::desc("Comma-separated globs of checks to run, as in "
                                     "clang-tidy; '-' removes (default: syncwatch-*)"),
                            cl::init("syncwatch-*"), cl::cat(Category));
cl::opt<std::string> Format("format", cl::desc("Report format: text, json, sarif or markdown (a CI job summary)"),
                            cl::init("text"), cl::cat(Category));
cl::opt<std::string> LinkBase("link-base",
                              cl::desc("Markdown: link each result to URL/<path under --source-root>#L<line> "
                                       "(e.g. $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA)"),
                              cl::value_desc("url"), cl::cat(Category));
cl::opt<std::string> OutputFile("output", cl::desc("Write the report to this file instead of stdout"),
                                cl::value_desc("file"), cl::cat(Category));
cl::alias OutputFileShort("o", cl::desc("Alias for --output"), cl::aliasopt(OutputFile));
cl::opt<std::string> FailOn("fail-on",
                            cl::desc("Lowest severity that makes the exit code 1: note, "
                                     "warning or error (default: warning)"),
                            cl::init("warning"), cl::cat(Category));
cl::opt<unsigned> Jobs("j", cl::desc("Files analyzed in parallel (default: one per core)"),
                       cl::init(0), cl::Prefix, cl::cat(Category));
cl::opt<bool> Progress("progress", cl::desc("Print [n/m] progress on stderr (default: when "
                                            "stderr is a terminal)"),
                       cl::cat(Category));
cl::list<std::string> ExtraArgs("extra-arg", cl::desc("Extra compiler argument to append"),
                                cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA installation for entries whose compiler is "
                                                    "not an nvcc inside one (default: $CUDA_PATH "
                                                    "or /usr/local/cuda)"),
                              cl::cat(Category));
cl::opt<bool> ListChecks("list-checks", cl::desc("List the checks and exit"), cl::cat(Category));
cl::opt<bool> ReportUnknown("report-unknown",
                            cl::desc("syncwatch-pageable-async-copy: also report copies whose "
                                     "host memory may be pageable (notes)"),
                            cl::cat(Category));
cl::list<std::string> CheckOption("check-option",
                                  cl::desc("A check's option, as .clang-tidy's CheckOptions: "
                                           "syncwatch-<rule>.<Option>=<value> (repeatable)"),
                                  cl::value_desc("key=value"), cl::cat(Category));
cl::opt<bool> Fix("fix", cl::desc("Apply the certain fixes in place (never the edits notes "
                                   "only suggest)"),
                  cl::cat(Category));
cl::opt<std::string> ExportFixes("export-fixes",
                                 cl::desc("Write the certain fixes as YAML for "
                                          "clang-apply-replacements"),
                                 cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> SourceRoot("source-root",
                               cl::desc("SARIF URIs and fingerprints relative to this directory (default: the git "
                                        "top level of the current directory, else the current directory)"),
                               cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string> WriteBaseline("write-baseline",
                                   cl::desc("Record all current findings as known, in this file"),
                                   cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> BaselineFile("baseline",
                                  cl::desc("Suppress the findings recorded in this baseline; "
                                           "only new ones are reported"),
                                  cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> ProfileFile("profile",
                                 cl::desc("Severities from what `syncwatch calibrate` measured on your GPU "
                                          "(a call that did not block there becomes a note)"),
                                 cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> NoSource("no-source", cl::desc("Text format: do not print source lines"),
                       cl::cat(Category));
cl::opt<std::string> Shard("shard",
                           cl::desc("Analyze only shard K of N (1 <= K <= N): the database's "
                                    "files sorted, every N-th from the K-th; merge the shards' "
                                    "SARIF with 'syncwatch-lint merge'"),
                           cl::value_desc("K/N"), cl::cat(Category));
cl::opt<bool> Stats("run-stats", cl::desc("Print files, wall time, the slowest file and peak memory "
                                      "on stderr"),
                    cl::cat(Category));
cl::opt<std::string> StatsJson("run-stats-json", cl::desc("Write the --run-stats figures as JSON to this file"),
                               cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> NoPch("no-pch", cl::desc("Parse CUDA's implicit prelude in every file instead of "
                                     "sharing one precompiled copy between files with the "
                                     "same flags"),
                    cl::cat(Category));
cl::opt<std::string> CacheDir("cache-dir",
                              cl::desc("Keep each file's findings in this directory and reuse "
                                       "them while the file, everything it includes, its "
                                       "flags, the checks and syncwatch itself are unchanged "
                                       "(default: $SYNCWATCH_CACHE_DIR, else off)"),
                              cl::value_desc("dir"), cl::cat(Category));
cl::opt<bool> NoCrossUnit("no-cross-unit",
                          cl::desc("Analyze each file alone: no second phase with the function "
                                   "summaries of the other files (docs/ci.md)"),
                          cl::cat(Category));
cl::opt<unsigned> CrossUnitMemory("cross-unit-memory",
                                  cl::desc("Keep files' parses from the first phase for the second "
                                           "while the process's resident memory is under this "
                                           "many MiB, so that the second phase does not parse "
                                           "them again (0: parse again; default 2048)"),
                                  cl::value_desc("MiB"), cl::init(2048), cl::cat(Category));
// Benchmarks and tests compare with the first phase judging each unit alone, in the
// database's order (LintOptions::JudgeWithKnown).
cl::opt<bool> NoEarlySummaries("no-early-summaries",
                               cl::desc("First phase: judge each file alone, in the database's "
                                        "order, not again with the summaries known at its "
                                        "parse's end"),
                               cl::Hidden, cl::cat(Category));
cl::opt<std::string> WriteSummaries("write-summaries",
                                    cl::desc("Write the analyzed files' function summaries to this "
                                             "file, for the other shards' --summaries"),
                                    cl::value_desc("file"), cl::cat(Category));
cl::list<std::string> SummaryFiles("summaries",
                                   cl::desc("Read other shards' --write-summaries files, so that "
                                            "calls into their files use their summaries (repeatable)"),
                                   cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> PrintCommands("print-commands",
                            cl::desc("Print the clang command each file is parsed with (after "
                                     "nvcc/g++ translation) and exit"),
                            cl::cat(Category));

constexpr int ExitClean = 0, ExitFindings = 1, ExitToolError = 2;

int toolError(const Twine &Message) {
  errs() << "syncwatch-lint: error: " << Message << "\n";
  return ExitToolError;
}

std::string defaultCudaPath() {
  if (const char *Env = std::getenv("CUDA_PATH"); Env && *Env)
    return Env;
  return sys::fs::exists("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

std::unique_ptr<CompilationDatabase> loadDatabase(const std::string &Path, std::string &Error) {
  if (sys::fs::is_regular_file(Path))
    return syncwatch::loadDatabaseFile(Path, Error);
  if (!sys::fs::is_directory(Path)) {
    Error = "'" + Path + "' does not exist";
    return nullptr;
  }
  SmallString<256> File(Path);
  sys::path::append(File, "compile_commands.json");
  if (!sys::fs::exists(File)) {  // (one that exists but cannot be read says why below)
    Error = "no compile_commands.json in '" + Path +
            "' (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or give flags after --)";
    return nullptr;
  }
  return syncwatch::loadDatabaseFile(std::string(File), Error);
}

// The files the units read that are the project's own (under the source root), with their
// SHA-256: `syncwatch confirm` tells a file that was analyzed and found clean from one of
// another program by them. System and CUDA headers are left out (thousands per unit).
std::vector<syncwatch::Artifact> artifactsUnder(const std::vector<std::string> &Files, const std::string &Root) {
  std::vector<syncwatch::Artifact> Out;
  std::string Prefix = Root.empty() || Root.back() == '/' ? Root : Root + "/";
  for (const std::string &F : Files) {
    if (!Prefix.empty() && F.compare(0, Prefix.size(), Prefix) != 0)
      continue;
    auto Buf = MemoryBuffer::getFile(F, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    Out.push_back({F, Buf ? toHex(SHA256::hash(arrayRefFromStringRef((*Buf)->getBuffer())), /*LowerCase=*/true) : ""});
  }
  return Out;
}

// Peak resident memory of this process (all workers) in KiB.
long peakRssKiB() {
  struct rusage U;
  return getrusage(RUSAGE_SELF, &U) == 0 ? U.ru_maxrss : 0;
}

bool parseShard(StringRef Spec, unsigned &K, unsigned &N) {
  auto [A, B] = Spec.split('/');
  return !A.getAsInteger(10, K) && !B.getAsInteger(10, N) && N >= 1 && K >= 1 && K <= N;
}

// syncwatch-lint merge [--output=F] [--format=sarif|text] [--fail-on=L] A.sarif B.sarif ...
// Exit code for a report: findings at or above the --fail-on level, then tool errors.
int exitCodeFor(const std::vector<syncwatch::Finding> &Findings, const std::vector<syncwatch::ToolError> &Errors,
                syncwatch::Severity FailLevel) {
  syncwatch::writeToolErrorsText(std::cerr, "syncwatch-lint", Errors);
  if (!Errors.empty())
    return ExitToolError;
  for (const syncwatch::Finding &F : Findings)
    if (F.Level >= FailLevel)
      return ExitFindings;
  return ExitClean;
}

// Writes the report to --output (all or nothing: file_output.h), or stdout. Never loses
// it: when the file cannot be written, it says why and the report goes to stdout instead
// (and false is returned: exit 2). A write error on stdout is an error too.
bool emitReport(const std::string &Text) {
  std::string Error;
  if (OutputFile.empty()) {
    if (syncwatch::writeStdout(Text, Error))
      return true;
    errs() << "syncwatch-lint: error: " << Error << "; the report is lost\n";
    return false;
  }
  if (syncwatch::writeFileAtomically(OutputFile, Text, Error))
    return true;
  errs() << "syncwatch-lint: error: cannot write '" << OutputFile << "': " << Error
         << " (any old file is untouched); the report follows on stdout\n";
  std::string StdoutError;
  if (!syncwatch::writeStdout(Text, StdoutError))
    errs() << "syncwatch-lint: error: " << StdoutError << "; the report is lost\n";
  return false;
}

// Outputs that are also inputs would destroy them: refused before anything runs.
std::string outputsThatAreInputs(const std::vector<std::string> &Inputs) {
  for (const std::string *Out : {&OutputFile.getValue(), &WriteBaseline.getValue(), &ExportFixes.getValue(),
                                 &StatsJson.getValue()})
    if (std::string In = syncwatch::outputThatIsAnInput(*Out, Inputs); !In.empty())
      return "the output '" + *Out + "' is the input '" + In + "': refusing to overwrite it";
  return "";
}

int runMerge() {
  if (Sources.empty())
    return toolError("merge: name the SARIF reports to merge");
  if (!BuildPath.empty() || !Shard.empty() || Fix || !ExportFixes.empty() ||
      !WriteBaseline.empty() || !BaselineFile.empty())
    return toolError("merge takes SARIF files and --output, --format, --fail-on only");
  // merge writes SARIF unless told otherwise.
  std::string Fmt = Format.getNumOccurrences() ? std::string(Format) : "sarif";
  if (Fmt != "sarif" && Fmt != "text" && Fmt != "markdown")
    return toolError("merge: --format must be sarif, text or markdown");
  std::optional<syncwatch::Severity> FailLevel = syncwatch::parseSeverity(FailOn);
  if (!FailLevel)
    return toolError("unknown --fail-on '" + FailOn + "' (expected note, warning or error)");
  if (std::string Clash = outputsThatAreInputs({Sources.begin(), Sources.end()}); !Clash.empty())
    return toolError("merge: " + Clash);
  std::vector<syncwatch::Report> Parts;
  for (const std::string &Path : Sources) {
    auto R = syncwatch::readSarif(Path);
    if (!R)
      return toolError(toString(R.takeError()));
    Parts.push_back(std::move(*R));
  }
  auto Merged = syncwatch::mergeReports(std::move(Parts));
  if (!Merged)
    return toolError("merge: " + toString(Merged.takeError()));
  std::ostringstream Text;
  if (Fmt == "sarif") {
    syncwatch::writeSarif(Text, *Merged);
  } else if (Fmt == "markdown") {
    syncwatch::writeMarkdown(Text, *Merged, {"syncwatch-lint", LinkBase});
  } else {
    syncwatch::TextOptions TO;
    TO.ShowSource = !NoSource;
    syncwatch::writeText(Text, Merged->Findings, syncwatch::diskLineReader(), TO);
  }
  int Exit = exitCodeFor(Merged->Findings, Merged->Errors, *FailLevel);
  if (!emitReport(Text.str()))
    return ExitToolError;
  errs() << "syncwatch-lint: merged " << Sources.size() << " report(s): "
         << Merged->Findings.size() << " finding(s), " << Merged->Errors.size()
         << " tool error(s)\n";
  return Exit;
}

// Paths as the user named the sources (clang-tidy's behaviour): with a source given by a
// relative path, the text report and the tool errors name files under the working directory
// relative to it; a source given by an absolute path, and every file outside the working
// directory, stays absolute. JSON, SARIF and Markdown keep their own paths (absolute, or
// under --source-root), which tools read.
class DisplayPaths {
public:
  DisplayPaths(const std::vector<std::string> &Named, StringRef StartDir) {
    bool AnyRelative = false;
    for (const std::string &N : Named) {
      if (sys::path::is_relative(N)) {
        AnyRelative = true;
      } else {
        SmallString<256> Abs(N);
        sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
        Absolute.insert(std::string(Abs));
      }
    }
    if (AnyRelative)
      Prefix = StartDir.str() + (StartDir.ends_with("/") ? "" : "/");
  }
  std::string operator()(const std::string &Path) const {
    if (Prefix.empty() || Path.compare(0, Prefix.size(), Prefix) != 0)
      return Path;
    SmallString<256> Clean(Path);
    sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
    return Absolute.count(std::string(Clean)) ? Path : Path.substr(Prefix.size());
  }
  std::vector<syncwatch::Finding> findings(std::vector<syncwatch::Finding> Findings) const {
    for (syncwatch::Finding &F : Findings) {
      F.Where.File = (*this)(F.Where.File);
      for (syncwatch::FindingNote &N : F.Notes)
        N.Where.File = (*this)(N.Where.File);
    }
    return Findings;
  }
  std::vector<syncwatch::ToolError> errors(std::vector<syncwatch::ToolError> Errors) const {
    for (syncwatch::ToolError &E : Errors)
      E.File = (*this)(E.File);
    return Errors;
  }

private:
  std::string Prefix;  // the working directory with a '/': empty when every source was absolute
  std::set<std::string> Absolute;
};

bool isSourceFile(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  return Ext == ".cu" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c" ||
         Ext == ".C";
}

// A step of lintMain that may end the run: the exit code to end it with, or nothing when
// the run goes on (the step has said why it stops, on stderr).
using Stop = std::optional<int>;

// The command line, split where lintMain's options end: "merge" as the first argument, the
// arguments llvm::cl parses, and the compile command after "--" (no database needed then).
struct CommandLine {
  bool Merge = false;
  std::vector<const char *> Args;
  std::vector<std::string> FixedFlags;
  bool HaveFixed = false;
};

Stop splitCommandLine(int argc, const char **argv, CommandLine &Command) {
  // "syncwatch-lint merge ...": the shards' reports into one.
  Command.Merge = argc > 1 && std::string_view(argv[1]) == "merge";
  for (int I = 0; I < argc; ++I) {
    if (Command.Merge && I == 1)
      continue;
    if (!Command.HaveFixed && std::string_view(argv[I]) == "--") {
      Command.HaveFixed = true;
      continue;
    }
    // LLVM leaves an `@file` that does not exist as it is, so `@missing.rsp` was taken for
    // a source file named so ("could not be parsed"): name the missing response file instead.
    if (!Command.HaveFixed && I > 0 && argv[I][0] == '@' && argv[I][1] && !sys::fs::exists(argv[I] + 1))
      return toolError("the response file '" + Twine(argv[I] + 1) + "' does not exist (an argument " +
                       "that starts with '@' names a file of arguments)");
    if (Command.HaveFixed)
      Command.FixedFlags.push_back(argv[I]);
    else
      Command.Args.push_back(argv[I]);
  }
  return std::nullopt;
}

// The option table above, filled from the command line by llvm::cl.
Stop parseOptions(const CommandLine &Command) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) { OS << "syncwatch-lint " SYNCWATCH_VERSION "\n"; });
  // A bad option is one line naming it (LLVM adds "Did you mean" lines: dropped), exit 2.
  std::string ParseErrors;
  raw_string_ostream ParseErrorStream(ParseErrors);
  if (!cl::ParseCommandLineOptions(static_cast<int>(Command.Args.size()), Command.Args.data(),
                                   "syncwatch-lint: finds implicit synchronization in CUDA "
                                   "host code\n\n  syncwatch-lint merge A.sarif B.sarif ... "
                                   "[--output F] [--format=sarif|text]: one report from "
                                   "--shard runs\n",
                                   &ParseErrorStream)) {
    StringRef First = StringRef(ParseErrors).split('\n').first;
    errs() << First.rtrim() << "\n";
    return ExitToolError;
  }
  return std::nullopt;
}

int listChecks() {
  for (syncwatch::RuleId R : syncwatch::enabledRules(Checks))
    outs() << syncwatch::ruleInfo(R).Id << "  " << syncwatch::ruleInfo(R).Summary << "\n";
  return ExitClean;
}

// What the options decide before anything is read: where the tool's files are, where it
// was started, the source root, the --fail-on level and the shard.
struct RunSettings {
  syncwatch::InstallLayout Layout;
  SmallString<256> StartDir;
  std::string Base;  // the source root: fingerprints and SARIF URIs are relative to it
  syncwatch::Severity FailLevel = syncwatch::Severity::Warning;
  unsigned ShardK = 1, ShardN = 1;
  syncwatch::CheckOptionValues CheckOptions;  // --check-option, --report-unknown
};

// Where the tool was started: running the units moves the process's working directory to
// each entry's `directory`, so it is read before. The source root is --source-root, or the
// git top level of that directory (else the directory itself).
Stop findSourceRoot(RunSettings &Settings) {
  sys::fs::current_path(Settings.StartDir);
  Settings.Base = syncwatch::defaultSourceRoot(std::string(Settings.StartDir));
  if (SourceRoot.empty())
    return std::nullopt;
  SmallString<256> Root(SourceRoot);
  sys::path::make_absolute(Settings.StartDir, Root);
  sys::path::remove_dots(Root, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Root))
    return toolError("--source-root '" + SourceRoot + "' is not a directory");
  Settings.Base = std::string(Root);
  return std::nullopt;
}

// The options checked, in the order they are said wrong, before any file is read.
Stop checkOptions(const char *Argv0, RunSettings &Settings) {
  if (Format != "text" && Format != "json" && Format != "sarif" && Format != "markdown")
    return toolError("unknown --format '" + Format + "' (expected text, json, sarif or markdown)");
  Settings.Layout = syncwatch::findInstallLayout(syncwatch::runningExecutable(Argv0), SYNCWATCH_BUILD_DIR,
                                                 SYNCWATCH_SOURCE_DIR);
  if (!Settings.Layout.Error.empty())
    return toolError(Settings.Layout.Error);
  if (Stop S = findSourceRoot(Settings))
    return S;
  std::optional<syncwatch::Severity> FailLevel = syncwatch::parseSeverity(FailOn);
  if (!FailLevel)
    return toolError("unknown --fail-on '" + FailOn + "' (expected note, warning or error)");
  Settings.FailLevel = *FailLevel;
  if (syncwatch::enabledRules(Checks).empty())
    return toolError("--checks '" + Checks + "' enables no syncwatch check (see --list-checks)");
  if (!Shard.empty() && !parseShard(Shard, Settings.ShardK, Settings.ShardN))
    return toolError("--shard '" + Shard + "': expected K/N with 1 <= K <= N, e.g. --shard=2/4");
  // --report-unknown is the pageable-copy check's ReportUnknown option.
  if (ReportUnknown)
    Settings.CheckOptions[std::string(syncwatch::ruleInfo(syncwatch::RuleId::PageableAsyncCopy).Id) + "." +
                          syncwatch::PageableAsyncCopyCheck::ReportUnknownOption] = "true";
  for (const std::string &O : CheckOption) {
    std::string Error;
    if (!syncwatch::parseCheckOption(O, Settings.CheckOptions, Error))
      return toolError(Error);
  }
  return std::nullopt;
}

// The compile commands: the flags after "--", else -p's database, else one found above the
// first source (clang-tidy's search).
Stop openDatabase(const CommandLine &Command, std::unique_ptr<CompilationDatabase> &DB) {
  std::string DbError;
  if (Command.HaveFixed) {
    std::vector<std::string> Flags = Command.FixedFlags;
    DB = std::make_unique<FixedCompilationDatabase>(".", Flags);
  } else if (!BuildPath.empty()) {
    DB = loadDatabase(BuildPath, DbError);
    if (!DB)
      return toolError("cannot load the compilation database: " + DbError);
  } else if (!Sources.empty()) {
    DB = CompilationDatabase::autoDetectFromSource(Sources.front(), DbError);
    if (!DB)
      return toolError("no compilation database found for '" + Sources.front() +
                       "': pass -p <build dir> or give compile flags after --");
  } else {
    return toolError("nothing to analyze: pass -p <build dir>, or files followed by -- <flags>");
  }
  return std::nullopt;
}

// Outputs that are also inputs (the sources, the baseline, the profile, the database) are
// refused before the run.
Stop refuseOutputsThatAreInputs(const std::vector<std::string> &Files) {
  std::vector<std::string> Inputs = Files;
  for (const std::string *In : {&BaselineFile.getValue(), &ProfileFile.getValue()})
    if (!In->empty())
      Inputs.push_back(*In);
  if (!BuildPath.empty()) {
    Inputs.push_back(BuildPath);
    Inputs.push_back(BuildPath + "/compile_commands.json");
  }
  if (std::string Clash = outputsThatAreInputs(Inputs); !Clash.empty())
    return toolError(Clash);
  return std::nullopt;
}

// The files to analyze, absolute: those named, else the database's sources; then --shard's
// part of them.
Stop selectFiles(const CompilationDatabase &DB, bool HaveFixed, const RunSettings &Settings,
                 std::vector<std::string> &Files) {
  Files.assign(Sources.begin(), Sources.end());
  if (Files.empty()) {
    for (const std::string &F : DB.getAllFiles())
      if (isSourceFile(F))
        Files.push_back(F);
    if (Files.empty())
      return toolError("the compilation database lists no C, C++ or CUDA source files");
  }
  for (std::string &F : Files) {
    SmallString<256> Abs(F);
    if (!HaveFixed || sys::path::is_relative(F))
      sys::fs::make_absolute(Abs);
    F = std::string(Abs);
  }
  if (Stop S = refuseOutputsThatAreInputs(Files))
    return S;
  if (!Shard.empty()) {
    std::size_t All = Files.size();
    Files = syncwatch::selectShard(std::move(Files), Settings.ShardK, Settings.ShardN);
    errs() << "syncwatch-lint: shard " << Settings.ShardK << "/" << Settings.ShardN << ": " << Files.size()
           << " of " << All << " file(s)\n";
  }
  return std::nullopt;
}

// How nvcc and g++ entries become clang host-side commands (clang's stay as they are).
syncwatch::TranslationConfig translationConfig(const syncwatch::InstallLayout &Layout,
                                               const std::string &FallbackCuda) {
  syncwatch::TranslationConfig Translation;
  Translation.ResourceDir = SYNCWATCH_CLANG_RESOURCE_DIR;
  Translation.FallbackCudaPath = FallbackCuda;
  Translation.CompatDir = Layout.CompatDir;
  return Translation;
}

// The run's options, from the option table.
syncwatch::LintOptions lintOptions(const std::string &FallbackCuda, const RunSettings &Settings) {
  syncwatch::LintOptions Options;
  Options.Checks = Checks;
  Options.Jobs = Jobs;
  Options.Progress = Progress || sys::Process::StandardErrIsDisplayed();
  Options.Host.ResourceDir = SYNCWATCH_CLANG_RESOURCE_DIR;
  Options.Host.CudaPath = FallbackCuda;
  Options.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  Options.UsePch = !NoPch;
  Options.CacheDir = CacheDir;
  if (CacheDir.getNumOccurrences() == 0)
    if (std::optional<std::string> Env = sys::Process::GetEnv("SYNCWATCH_CACHE_DIR"))
      Options.CacheDir = *Env;
  Options.Checking = Settings.CheckOptions;
  Options.CrossUnit = !NoCrossUnit;
  Options.KeepParsesMiB = CrossUnitMemory;
  Options.JudgeWithKnown = !NoEarlySummaries;
  return Options;
}

// The other shards' --summaries files, for the cross-unit phase.
Stop importSummaries(syncwatch::LintOptions &Options) {
  if (NoCrossUnit && (!SummaryFiles.empty() || !WriteSummaries.empty()))
    return toolError("--summaries and --write-summaries need the cross-unit phase; drop --no-cross-unit");
  for (const std::string &F : SummaryFiles) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(F);
    if (!Buf)
      return toolError("cannot read the summaries '" + F + "': " + Buf.getError().message());
    std::string Text((*Buf)->getBuffer()), Error;
    std::vector<std::pair<std::string, syncwatch::UnitSummary>> Units;
    if (std::string Limits = syncwatch::jsonLimitsError(Text); !Limits.empty())
      return toolError("'" + F + "' is not a summary file: " + Limits);
    if (!syncwatch::readSummaryFile(Text, Units, Error))
      return toolError("'" + F + "' is not a summary file: " + Error);
    for (auto &U : Units)
      Options.ImportedSummaries.push_back(std::move(U));
  }
  return std::nullopt;
}

// The baseline and the profile, read before the (long) analysis, so a bad path fails fast.
Stop readBaselineAndProfile(std::set<std::string> &Known, std::optional<syncwatch::CalibrationProfile> &Measured) {
  if (!BaselineFile.empty()) {
    auto Loaded = syncwatch::readBaseline(BaselineFile);
    if (!Loaded)
      return toolError(toString(Loaded.takeError()));
    Known = std::move(*Loaded);
  }
  if (!ProfileFile.empty()) {
    std::string Error;
    if (!syncwatch::readCalibrationProfile(ProfileFile, Measured.emplace(), Error))
      return toolError(Error);
  }
  return std::nullopt;
}

int printCommands(const CompilationDatabase &DB, const std::vector<std::string> &Files,
                  const syncwatch::LintOptions &Options) {
  for (const std::string &F : Files)
    for (const std::string &Line : syncwatch::finalCommands(DB, F, Options))
      outs() << Line << "\n";
  return ExitClean;
}

// The headers the units included are inputs too, known only now (the guard before the run
// saw the sources and the database): `--output=kernels.cuh` replaced that header with the
// report. Nothing is written then; the report goes to stdout, so no finding is lost.
// Returns whether the outputs were refused (the run then exits 2).
bool refuseOutputsThatWereRead(const std::vector<std::string> &FilesRead) {
  std::string Clash = outputsThatAreInputs(FilesRead);
  if (Clash.empty())
    return false;
  errs() << "syncwatch-lint: error: " << Clash << " (a file the analysis read); nothing is written, "
         << "the report follows on stdout\n";
  OutputFile.setValue("");
  WriteBaseline.setValue("");
  ExportFixes.setValue("");
  StatsJson.setValue("");
  WriteSummaries.setValue("");
  Fix.setValue(false);
  return true;
}

// What the run says on stderr before the report: a cache it could not use, the profile's
// changes of severity.
void reportRunNotes(syncwatch::LintResult &Result, const std::optional<syncwatch::CalibrationProfile> &Measured) {
  if (!Result.CacheProblem.empty())
    errs() << "syncwatch-lint: warning: " << Result.CacheProblem << "; continuing without it\n";
  if (Measured) {
    unsigned Changed = syncwatch::applyProfile(Result.Findings, *Measured);
    errs() << "syncwatch-lint: profile of " << Measured->Device << ": " << Changed
           << " finding(s) changed severity\n";
  }
}

// Fingerprints and SARIF URIs name files relative to the source root (Base: the
// repository's top level by default), so the same checkout elsewhere gives the same.
// Then --write-baseline records the findings, and --baseline drops the known ones.
Stop applyBaselines(std::vector<syncwatch::Finding> &Findings, const std::set<std::string> &Known,
                    const std::string &Base) {
  auto Lines = syncwatch::diskLineReader();
  {
    std::vector<std::string> Prints = syncwatch::fingerprints(Findings, Lines, Base);
    for (std::size_t I = 0; I < Prints.size(); ++I)
      Findings[I].Fingerprint = Prints[I];
  }
  if (!WriteBaseline.empty()) {
    if (llvm::Error E = syncwatch::writeBaseline(WriteBaseline, Findings, Lines, Base))
      return toolError(toString(std::move(E)));
    errs() << "syncwatch-lint: wrote " << Findings.size() << " finding(s) to baseline '"
           << WriteBaseline << "'\n";
  }
  if (!BaselineFile.empty()) {
    unsigned Suppressed = syncwatch::applyBaseline(Findings, Known, Lines, Base);
    errs() << "syncwatch-lint: " << Suppressed << " known finding(s) suppressed by baseline '"
           << BaselineFile << "', " << Findings.size() << " new\n";
  }
  return std::nullopt;
}

// --export-fixes and --fix. Returns false when either failed (it said why; the run exits 2
// after its report).
bool applyFixesAsAsked(const std::vector<syncwatch::Finding> &Findings) {
  bool FixFailed = false;
  if (!ExportFixes.empty())
    if (llvm::Error E = syncwatch::exportFixes(ExportFixes, Findings)) {
      errs() << "syncwatch-lint: error: " << toString(std::move(E)) << "\n";
      FixFailed = true;
    }
  if (Fix) {
    auto Applied = syncwatch::applyFixes(Findings);
    if (!Applied) {
      errs() << "syncwatch-lint: error: " << toString(Applied.takeError()) << "\n";
      FixFailed = true;
    } else {
      errs() << "syncwatch-lint: applied " << Applied->Applied << " edit(s) in " << Applied->Files
             << " file(s)\n";
    }
  }
  return !FixFailed;
}

syncwatch::Report reportOf(const syncwatch::LintResult &Result, const RunSettings &Settings) {
  syncwatch::Report Report;
  Report.ToolName = "syncwatch-lint";
  Report.ToolVersion = SYNCWATCH_VERSION;
  Report.Findings = Result.Findings;
  Report.Errors = Result.Errors;
  Report.RulesRun = Result.RulesRun;
  Report.DocsBaseUri = syncwatch::pathToUri(Settings.Layout.RuleDocsDir + "/");
  Report.FilesAnalyzed = Result.FilesAnalyzed;
  Report.SourceRoot = Settings.Base;
  Report.Artifacts = artifactsUnder(Result.FilesRead, Settings.Base);
  return Report;
}

// The report in --format; the text format names files as the user named the sources.
std::string formatReport(const syncwatch::Report &Report, const DisplayPaths &Shown) {
  std::ostringstream Text;
  if (Format == "json")
    syncwatch::writeJson(Text, Report);
  else if (Format == "sarif")
    syncwatch::writeSarif(Text, Report);
  else if (Format == "markdown")
    syncwatch::writeMarkdown(Text, Report, {"syncwatch-lint", LinkBase});
  else {
    syncwatch::TextOptions TO;
    TO.ShowSource = !NoSource;
    TO.Color = OutputFile.empty() && sys::Process::StandardOutHasColors();
    syncwatch::writeText(Text, Shown.findings(Report.Findings), syncwatch::diskLineReader(), TO);
  }
  return Text.str();
}

// The run's exit code (it writes the tool errors to stderr): findings at or above
// --fail-on, tool errors, a fix that failed.
int runExitCode(const syncwatch::Report &Report, const DisplayPaths &Shown, syncwatch::Severity FailLevel,
                bool FixFailed) {
  int Exit = exitCodeFor(Report.Findings, Shown.errors(Report.Errors), FailLevel);
  if (FixFailed)
    Exit = ExitToolError;
  // --write-baseline records; the run that writes it is not a failure.
  if (!WriteBaseline.empty() && Exit == ExitFindings)
    Exit = ExitClean;
  return Exit;
}

// Writes the report (emitReport). Recording a baseline is quiet: its one line on stderr
// says what was written. The report too only when asked for (--output, or a --format
// named). Returns false when the run must exit 2: the report could not be written where
// asked, or the outputs were refused (refuseOutputsThatWereRead).
bool emitRunReport(const std::string &Text, const syncwatch::Report &Report, bool OutputRefused) {
  bool Quiet = !WriteBaseline.empty() && OutputFile.empty() && Format.getNumOccurrences() == 0;
  if ((!Quiet && !emitReport(Text)) || OutputRefused)
    return false;
  if (!Quiet && Format == "text" && Report.Findings.empty() && Report.Errors.empty() && OutputFile.empty())
    errs() << "syncwatch-lint: " << Report.FilesAnalyzed << " file(s) analyzed, no findings\n";
  return true;
}

Stop writeSummaries(const syncwatch::LintResult &Result) {
  if (WriteSummaries.empty())
    return std::nullopt;
  std::string Error;
  if (!syncwatch::writeFileAtomically(WriteSummaries, syncwatch::summaryFileText(Result.Summaries), Error))
    return toolError("cannot write '" + WriteSummaries + "': " + Error);
  return std::nullopt;
}

// The --run-stats-json figures (the same as --run-stats's line).
std::string statsJson(std::size_t Files, const syncwatch::LintResult &Result, double Wall, long Rss) {
  std::string StatsText;
  raw_string_ostream J(StatsText);
  json::OStream O(J, 2);
  O.object([&] {
    O.attribute("files", static_cast<int64_t>(Files));
    O.attribute("analyzed", static_cast<int64_t>(Result.FilesAnalyzed));
    O.attribute("toolErrors", static_cast<int64_t>(Result.Errors.size()));
    O.attribute("crashesRecovered", static_cast<int64_t>(Result.Crashes));
    O.attribute("findings", static_cast<int64_t>(Result.Findings.size()));
    O.attribute("workers", static_cast<int64_t>(Result.Workers));
    O.attribute("wallSeconds", Wall);
    O.attribute("slowestFile", Result.SlowestFile);
    O.attribute("slowestSeconds", Result.SlowestSeconds);
    O.attribute("peakRssKiB", static_cast<int64_t>(Rss));
    O.attribute("preludePchs", static_cast<int64_t>(Result.PchsBuilt));
    O.attribute("pchFallbacks", static_cast<int64_t>(Result.PchFallbacks));
    O.attribute("cacheHits", static_cast<int64_t>(Result.CacheHits));
    O.attribute("cacheMisses", static_cast<int64_t>(Result.CacheMisses));
    O.attribute("reanalyzedWithSummaries", static_cast<int64_t>(Result.ReanalyzedFiles.size()));
    O.attributeArray("reanalyzedFiles", [&] {
      for (const std::string &F : Result.ReanalyzedFiles)
        O.value(F);
    });
    O.attribute("parsesKept", static_cast<int64_t>(Result.UnitsKept));
    O.attribute("judgedAgainFromKeptParses", static_cast<int64_t>(Result.UnitsJudgedAgain));
    O.attribute("judgedWithKnownSummaries", static_cast<int64_t>(Result.UnitsJudgedWithKnown));
  });
  J << "\n";
  return J.str();
}

// --run-stats (a line on stderr) and --run-stats-json (a file).
Stop writeRunStats(std::size_t Files, const syncwatch::LintResult &Result,
                   std::chrono::steady_clock::time_point Started) {
  if (!Stats && StatsJson.empty())
    return std::nullopt;
  double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Started).count();
  long Rss = peakRssKiB();
  if (Stats)
    errs() << format("syncwatch-lint: stats: %zu file(s), %u analyzed, %zu tool error(s), "
                     "%u crash(es) recovered; %u worker(s); wall %.1f s; slowest %.1f s (%s); "
                     "peak RSS %.1f MiB; %u prelude PCH(s), %u fallback(s); cache %u hit(s), "
                     "%u miss(es); %u file(s) analyzed again with other files' summaries, %u of them "
                     "without a new parse (%u parse(s) kept); %u judged at their first parse's end with "
                     "the summaries known then\n",
                     Files, Result.FilesAnalyzed, Result.Errors.size(), Result.Crashes,
                     Result.Workers, Wall, Result.SlowestSeconds, Result.SlowestFile.c_str(),
                     Rss / 1024.0, Result.PchsBuilt, Result.PchFallbacks, Result.CacheHits,
                     Result.CacheMisses, static_cast<unsigned>(Result.ReanalyzedFiles.size()), Result.UnitsJudgedAgain, Result.UnitsKept,
                     Result.UnitsJudgedWithKnown);
  if (!StatsJson.empty()) {
    std::string Error;
    if (!syncwatch::writeFileAtomically(StatsJson, statsJson(Files, Result, Wall, Rss), Error))
      return toolError("cannot write '" + StatsJson + "': " + Error);
  }
  return std::nullopt;
}

} // namespace

// The option table (above) -> the compilation database -> the run -> the report.
int lintMain(int argc, const char **argv) {
  auto Started = std::chrono::steady_clock::now();
  CommandLine Command;
  if (Stop S = splitCommandLine(argc, argv, Command))
    return *S;
  if (Stop S = parseOptions(Command))
    return *S;
  if (Command.Merge)
    return runMerge();
  // A crash while analyzing one file is recovered and reported as that file's tool error.
  syncwatch::enableCrashRecovery();
  if (ListChecks)
    return listChecks();
  RunSettings Settings;
  if (Stop S = checkOptions(argv[0], Settings))
    return *S;

  std::unique_ptr<CompilationDatabase> DB;
  if (Stop S = openDatabase(Command, DB))
    return *S;
  DisplayPaths Shown({Sources.begin(), Sources.end()}, Settings.StartDir);
  std::vector<std::string> Files;
  if (Stop S = selectFiles(*DB, Command.HaveFixed, Settings, Files))
    return *S;
  // nvcc and g++ entries become clang host-side commands; clang's stay as they are.
  std::string FallbackCuda = CudaPath.empty() ? defaultCudaPath() : std::string(CudaPath);
  syncwatch::TranslatingDatabase Translated(*DB, translationConfig(Settings.Layout, FallbackCuda));
  syncwatch::LintOptions Options = lintOptions(FallbackCuda, Settings);
  if (Stop S = importSummaries(Options))
    return *S;
  std::set<std::string> Known;
  std::optional<syncwatch::CalibrationProfile> Measured;
  if (Stop S = readBaselineAndProfile(Known, Measured))
    return *S;
  if (PrintCommands)
    return printCommands(Translated, Files, Options);

  syncwatch::LintResult Result = syncwatch::runLint(Translated, Files, Options);
  bool OutputRefused = refuseOutputsThatWereRead(Result.FilesRead);
  reportRunNotes(Result, Measured);
  if (Stop S = applyBaselines(Result.Findings, Known, Settings.Base))
    return *S;
  bool FixFailed = !applyFixesAsAsked(Result.Findings);

  syncwatch::Report Report = reportOf(Result, Settings);
  std::string Text = formatReport(Report, Shown);
  int Exit = runExitCode(Report, Shown, Settings.FailLevel, FixFailed);
  if (!emitRunReport(Text, Report, OutputRefused))
    return ExitToolError;
  if (Stop S = writeSummaries(Result))
    return *S;
  if (Stop S = writeRunStats(Files.size(), Result, Started))
    return *S;
  return Exit;
}

// A write error on stdout (--list-checks, --print-commands: llvm::outs()) is an I/O error:
// exit 2 with a message, not LLVM's abort at exit or a silent loss.
int main(int argc, const char **argv) {
  syncwatch::cleanUpOnSignals();  // before any other thread: the prelude PCHs go with a signal
  int Exit = lintMain(argc, argv);
  outs().flush();
  if (outs().has_error()) {
    outs().clear_error();
    errs() << "syncwatch-lint: error: cannot write to standard output\n";
    return ExitToolError;
  }
  return Exit;
}
