// `syncwatch gate`: a CI gate on what a run measured. One run's reports (its processes, or
// ranks) are held against
//   - a budget: at most N ms blocked at call sites in the run (--budget-ms), or in any one
//     step where the program marks steps (--budget-ms-per-step, SYNCWATCH_STEP);
//   - an allowlist: sites a project accepted, each with its reason, scoped by file (and
//     line), function or thread, optionally capped (maxMs);
//   - a baseline: an earlier run (its reports or recordings, or a baseline gate wrote), so
//     that only new sites and sites whose cost grew beyond --grow-ms / --grow-pct fail.
// A site below --min-cost-ms never fails (timer noise). --fail-on is the lint's: a site
// fails at or above that severity (note | warning | error); a run over its budget and a
// site over its allowance are errors, so they fail at every --fail-on. Exit codes as the
// lint's: 0 passes, 1 fails, 2 a tool error (bad input, an unwritable output).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct GateOptions {
  std::vector<std::string> Inputs;    // one run: each process's report (.json) or recording (.swrec)
  std::vector<std::string> Baseline;  // the earlier run's files, or one baseline written by --write-baseline
  std::string WriteBaseline;          // record this run as the baseline (exit 0 unless a tool error)
  std::string Allowlist;              // JSON: {"allow": [{"file"|"function"|"thread", "reason", ...}]}
  double BudgetMs = -1;               // < 0: no budget
  // At most N ms blocked in any one step the program marked (SYNCWATCH_STEP; < 0: none). A
  // run whose reports marked no step is a tool error: the budget cannot be held.
  double BudgetMsPerStep = -1;
  double GrowMs = 1, GrowPct = 10;    // a known site fails when it grew by more than both
  double MinCostMs = 1;
  std::string FailOn = "warning";     // note | warning | error
  std::string Format = "text";        // text | json | markdown | sarif
  std::string Output;                 // empty: stdout
  std::vector<std::pair<std::string, std::string>> PathMaps;  // the baseline's paths as this run's
};

int gateRun(const GateOptions &Opts);

} // namespace syncwatch::runtime
