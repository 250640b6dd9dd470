// The evidence `syncwatch confirm` gives each result (JSON "evidence"; SARIF
// properties.syncwatch.<key>), and how a reader takes what the runtime said at a line from
// any runtime report. One vocabulary for every status: a reader asks one key whatever the
// status (a runtime-only result once had its cost under "totalMs" and a confirmed one under
// "syncwatch.totalMs", and syncwatch-lsp's hover read 0 us for every runtime-only line).
// Confirm writes these keys (interposer/join/Confirm.cpp); the markdown summary and
// syncwatch-lsp read them; they are spelled here only.
//
//   status                      confirmed | not-observed | not-measured | not-exercised |
//                               runtime-only
//   count, totalMs, maxMs       what the runtime measured (confirmed, runtime-only) or
//                               counted at the line (not-observed, not-measured)
//   runtimeRule, runtimeMessage the runtime finding's rule and words (confirmed, runtime-only)
//   gpu, host, driver, profile  where the runtime ran (every status)
// A runtime-only result keeps the runtime finding's own evidence beside these (its
// unprefixed count, totalMs...), as confirm wrote it before.
#pragma once

#include "syncwatch/report.h"

#include <optional>
#include <string>

namespace syncwatch {

namespace confirm_key {
inline constexpr char Status[] = "syncwatch.status";
inline constexpr char Count[] = "syncwatch.count";
inline constexpr char TotalMs[] = "syncwatch.totalMs";
inline constexpr char MaxMs[] = "syncwatch.maxMs";
inline constexpr char Measured[] = "syncwatch.measured";
inline constexpr char MeasureWith[] = "syncwatch.measureWith";
inline constexpr char Unmeasured[] = "syncwatch.unmeasured";
inline constexpr char BelowMinCostMs[] = "syncwatch.belowMinCostMs";
inline constexpr char RuntimeRule[] = "syncwatch.runtimeRule";
inline constexpr char RuntimeMessage[] = "syncwatch.runtimeMessage";
inline constexpr char RuntimeLine[] = "syncwatch.runtimeLine";
inline constexpr char RuntimeFunction[] = "syncwatch.runtimeFunction";
inline constexpr char Via[] = "syncwatch.via";
inline constexpr char MatchedBy[] = "syncwatch.matchedBy";
inline constexpr char Gpu[] = "syncwatch.gpu";
inline constexpr char Host[] = "syncwatch.host";
inline constexpr char Driver[] = "syncwatch.driver";
inline constexpr char Profile[] = "syncwatch.profile";
} // namespace confirm_key

// On a confirm result: the runtime finding's rule, message and measurement (count, totalMs,
// maxMs) under confirm's keys. Confirmed results (Runtime is the finding joined to the
// static result) and runtime-only ones (Runtime is the result's own finding) alike.
void setRuntimeEvidence(Finding &Result, const Finding &Runtime);

// What the runtime said at a finding of any runtime report: a process's report or a merged
// one (the finding is the runtime's own), or syncwatch confirm's output (any status; one
// written before the keys were shared too: a runtime-only result's own evidence then).
struct RuntimeEvidence {
  std::string Status;             // confirm's status; "" for a runtime report's own finding
  std::string Count;              // calls, as written; "" when not counted
  std::optional<double> TotalMs;  // none when not measured
  std::string Rule, Message;      // the runtime finding's; "" where none was joined
  std::string Gpu;                // the result's own (confirm's); "" when the report says it
  // Whether the runtime reported a finding here that no static result names: a runtime
  // report's finding, or a runtime-only confirm result.
  bool runtimeOnly() const { return Status.empty() || Status == "runtime-only"; }
};
RuntimeEvidence readRuntimeEvidence(const Finding &F);

// The GPU a runtime report's finding ran on, where the report says it for all its findings:
// a process's report ("process": gpu), a merged report (figures rank.<rank>.gpu, as
// `syncwatch merge` writes them: the finding's worst rank's, else every rank's). "" when none.
std::string reportGpuOf(const Report &R, const Finding &F);

} // namespace syncwatch
