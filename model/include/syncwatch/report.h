// Report writers shared by both halves: clang-style text, JSON and SARIF 2.1.0.
#pragma once

#include "syncwatch/finding.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

// Which calls ran where, and how often, fast ones included (the runtime half): what tells a
// static warning that ran and never stalled (not-observed) from one whose line never ran
// (not-exercised) in `syncwatch confirm`.
struct CoveredCall {
  std::string Api;
  SourceSpan Where;          // the line a user edits (the Python line in a Python process)
  std::string NativeFile;    // the first native frame outside CUDA and the runtimes
  unsigned NativeLine = 0;
  std::uint64_t Count = 0;
  double TotalMs = 0, MaxMs = 0;
  // Of Count: the calls whose cost the runtime could judge. The others ran untimed: launches
  // before kernel activity was traced, and calls the fast path counted without timing them
  // (a legacy-stream launch while no blocking stream had work). Older reports: all of them.
  std::uint64_t Measured = 0;
};

// A file the analyzer read (SARIF run.artifacts): what lets `syncwatch confirm` tell a file
// that was analyzed and found clean from one of another program.
struct Artifact {
  std::string File;    // absolute
  std::string Sha256;  // of its content when it was read ("" when unknown)
};

struct Report {
  std::string ToolName = "syncwatch";
  std::string ToolVersion;
  std::vector<Finding> Findings;
  std::vector<ToolError> Errors;
  std::vector<RuleId> RulesRun;   // rules that were enabled, for SARIF's rule table
  std::string DocsBaseUri;        // e.g. file:///.../docs/rules/ ; each rule's page is <id>.md
  unsigned FilesAnalyzed = 0;
  // Run-wide figures (the runtime half's GPU overlap figures): JSON "figures", SARIF run
  // properties. Empty for the analyzer.
  std::vector<std::pair<std::string, std::string>> Figures;
  // Which process made it (the runtime half: rank, worldSize, job, host, gpu, pid,
  // commandLine): JSON "process", SARIF run properties "process". Empty for the analyzer.
  std::vector<std::pair<std::string, std::string>> Process;
  // The runtime half's call sites with their counts: JSON "coverage", SARIF run properties.
  std::vector<CoveredCall> Coverage;
  // SARIF: files under this absolute directory get URIs relative to it, under the
  // originalUriBaseIds entry %SRCROOT% (code scanning maps repo-relative URIs to the
  // repository's files); files outside it keep absolute file:// URIs. Empty: all absolute.
  std::string SourceRoot;
  // The files the analyzed units read (the lint: those under SourceRoot), sorted.
  std::vector<Artifact> Artifacts;
};

// The default --source-root: the top of the git checkout that holds Dir (a directory with
// a .git entry, found walking up), else Dir itself.
std::string defaultSourceRoot(const std::string &Dir);

// Gives the text of a 1-based line of a file, or nothing when it cannot be read.
using SourceLineReader = std::function<std::optional<std::string>(const std::string &File, unsigned Line)>;

// Reads lines from disk, caching each file once.
SourceLineReader diskLineReader();

struct TextOptions {
  bool ShowSource = true;  // the source line and a caret under the range
  bool Color = false;
};

// file:line:col: warning: message [rule-id]  (clang's format), notes and fix-its after it.
void writeText(std::ostream &Out, const std::vector<Finding> &Findings,
               const SourceLineReader &Lines, const TextOptions &Opts = {});
void writeToolErrorsText(std::ostream &Out, const std::string &Tool,
                         const std::vector<ToolError> &Errors);

void writeJson(std::ostream &Out, const Report &R);
class JsonWriter;
void writeCoverage(JsonWriter &J, const std::vector<CoveredCall> &Coverage);  // "coverage": [...]
void writeSarif(std::ostream &Out, const Report &R);

// "50.2 ms", "1.01 s", "911 us": how every report, table and summary says a time.
std::string formatDuration(std::uint64_t Ns);
inline std::string formatMs(double Ms) { return formatDuration(static_cast<std::uint64_t>(Ms * 1e6)); }
// A measurement as evidence holds it ("81.600000"): what setMeasured writes.
inline std::string evidenceNumber(double V) { return std::to_string(V); }

// Markdown for a person: a CI job summary ($GITHUB_STEP_SUMMARY) or a merge-request note.
// One table, costliest first when the findings carry measured costs (syncwatch confirm,
// runtime reports), else by severity and place (syncwatch-lint); the runtime-only findings
// apart; counts by status. Each place links to its line: LinkBase + "/" + the path under
// SourceRoot + "#L<line>" (a relative link when LinkBase is empty; files outside SourceRoot
// are not linked). The whole stays within MaxBytes (GitHub takes 1 MiB a step): rows past
// that are left out, with a line that says how many.
struct MarkdownOptions {
  std::string Title;      // "syncwatch confirm"; default: the report's tool name
  std::string LinkBase;   // e.g. https://github.com/o/r/blob/<sha>
  std::size_t MaxBytes = 1 << 20;
};
void writeMarkdown(std::ostream &Out, const Report &R, const MarkdownOptions &Opts = {});

// Writes R as Format ("json", "sarif" or "markdown") and returns true; false for any other
// format (the tool's own text), writing nothing.
bool writeReportAs(std::ostream &Out, const Report &R, const std::string &Format, const MarkdownOptions &Opts = {});

// Turns a path into a file:// URI (absolute paths) or a relative URI reference.
std::string pathToUri(const std::string &Path);

} // namespace syncwatch
