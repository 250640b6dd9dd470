// The one Finding model shared by the analyzer and the runtime detector.
#pragma once

#include "syncwatch/catalogue.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch {

// A source position, 1-based. End is exclusive-column like clang's token ranges turned
// into characters; 0 means unknown.
struct SourceSpan {
  std::string File;
  unsigned Line = 0, Column = 0;
  unsigned EndLine = 0, EndColumn = 0;
  bool known() const { return !File.empty() && Line > 0; }
};

// A textual replacement: replace [Where.Line:Column, EndLine:EndColumn) with Text.
struct FixIt {
  SourceSpan Where;
  std::string Text;
};

// A secondary location: an allocation, the legacy-stream work a stream interacts with.
// A note may suggest an edit that is right only after a person's look (never applied by
// --fix), e.g. making a stream non-blocking.
struct FindingNote {
  SourceSpan Where;
  std::string Message;
  std::vector<FixIt> SuggestedFixes;
};

// What the runtime measured at a finding's site: its calls, their cost in all and the
// costliest one. Typed here, written as the evidence "count", "totalMs" and "maxMs" of every
// report format (setMeasured), and read back into this by each reader, once.
struct Measurement {
  std::uint64_t Count = 0;
  double TotalMs = 0, MaxMs = 0;
};

struct Finding {
  std::string Rule;             // rule id, e.g. "syncwatch-default-stream"
  Severity Level = Severity::Warning;
  SourceSpan Where;
  std::string Message;
  std::vector<FindingNote> Notes;
  std::vector<FixIt> Fixes;     // certain fixes only: applied by --fix
  // Facts behind the finding, as key/value pairs: the API, its catalogue entry's
  // documented and measured behaviour, runtime counts and times.
  std::vector<std::pair<std::string, std::string>> Evidence;
  // The baseline's line-shift-proof identity (fingerprint.h), when the writer of the report
  // computed it: SARIF partialFingerprints, so code scanning keeps one alert per finding.
  std::string Fingerprint;
  // SARIF's rank (0-100, higher first), when the writer ranks results: syncwatch confirm
  // ranks them by measured cost. -1: unranked.
  double Rank = -1;
  // The function the result is in: qualified ("ns::Pool::drain", no parameters) and as the
  // linker names it (Itanium-mangled). The lint writes both (SARIF logicalLocations); a
  // runtime site without a line table has only the name, which is how `syncwatch confirm`
  // joins a release build's stalls to static results.
  std::string Function, MangledFunction;
  // The first and last line of the macro invocation the result is written in, where it spans
  // more lines than the result (CUDA_CHECK(\n cudaMemcpyAsync(...))): a line table names the
  // invocation's first line for every call in it, so `syncwatch confirm` joins a runtime site
  // at any of them. SARIF's contextRegion. 0: none.
  unsigned ContextLine = 0, ContextEndLine = 0;
  // The runtime's measurement (none for a static result).
  std::optional<Measurement> Measured;
};

// A failure of the tool on one input (a file that does not parse, an unreadable
// database entry): reported beside findings, never instead of them.
struct ToolError {
  std::string File;
  std::string Message;
};

// Sort order for stable reports: file, line, column, rule, message.
bool findingLess(const Finding &A, const Finding &B);

// The order reports are written in: findingLess, then the whole finding, so that of two
// findings at one place (a header reached from two files) the same one is kept whatever
// order the files were analyzed in; duplicates by findingLess are removed, and of findings
// at one place by one rule only the most severe are kept (a header's code a warning in one
// unit and a note in another is a warning). Every writer of
// several units' or shards' results (the lint, its merge) sorts with these.
void sortFindings(std::vector<Finding> &Findings);
void sortErrors(std::vector<ToolError> &Errors);
// Evidence in key order (JSON objects are unordered; a fixed order keeps reports stable).
void sortEvidence(std::vector<Finding> &Findings);

// The value of one evidence key, or nullptr when the finding has none.
const std::string *evidenceOf(const Finding &F, const std::string &Key);
// Sets an evidence key, in place where the finding has it already, else at the end.
void setEvidence(Finding &F, const std::string &Key, const std::string &Value);
// Sets the measurement and its evidence (count only when there is one).
void setMeasured(Finding &F, const Measurement &M);
// After a reader filled the evidence: the measurement it holds, if any (totalMs present).
// False, with Error naming the field after Field, where the evidence is in the input
// ("findings[0].evidence.totalMs '-50.0' is negative: ..."), for a count, time or thread
// cost that is not one (evidence_number.h).
bool readMeasured(Finding &F, const std::string &Field, std::string &Error);
// The finding's measured cost in ms (0 for a static result).
inline double measuredMs(const Finding &F) { return F.Measured ? F.Measured->TotalMs : 0; }

// A demangled function name as Finding::Function holds it - qualified, without return type,
// template arguments, parameters or a symbol offset: "void ns::f<int>(float)+0x5f" and
// "int at::Tensor::item<int>() const" become "ns::f" and "at::Tensor::item". How both halves
// name a function: the runtime's release-build sites, the op a torch finding is in, the
// vendor names of the interposer's frames, and confirm's join by function.
std::string qualifiedFunctionName(const std::string &Demangled);

} // namespace syncwatch
