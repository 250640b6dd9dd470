// `syncwatch verify`: did a fix save time? The program is run before and after the fix, N
// times each, interleaved, under syncwatch (or the reports of such runs are read), and every
// call site's blocked time is compared with a 95% interval from the repeats: saved, no
// change within noise, or slower - per site, and for the whole run (wall time, GPU idle
// time, host time lost). Sites are matched across the two builds as confirm matches them:
// fingerprint, then file and line, then function and API, since a fix moves lines.
#pragma once

#include "RunSites.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct VerifyOptions {
  std::vector<VerifyRun> Before, After;
  std::string Format = "text";  // text | json | markdown | sarif
  std::string Output;           // empty: stdout
  // A change smaller than this is no change whatever its interval (timer noise on a site
  // that blocked 3 us): ms.
  double MinEffectMs = 0.05;
  std::vector<std::pair<std::string, std::string>> PathMaps;  // as confirm's, before -> after
};

// The 95% interval of mean(After) - mean(Before) (Welch), and what it says.
struct Difference {
  double BeforeMean = 0, AfterMean = 0, Delta = 0, Low = 0, High = 0;
  std::string Verdict;  // "saved", "no change", "slower"
};
Difference compareSamples(const std::vector<double> &Before, const std::vector<double> &After, double MinEffect);

// Reads a --before/--after DIR: each subdirectory one run (its reports together), else each
// report or recording in DIR one run. False with Error when it holds none.
bool runsInDirectory(const std::string &Dir, std::vector<VerifyRun> &Runs, std::string &Error);

// The two commands (or one command with two environments) run by verify itself: Runs
// times each, interleaved (before, after, before, ...), each under `Self run --out
// OutDir/{before,after}/run-K`, its wall time measured and left beside its reports.
struct VerifyCommands {
  std::vector<std::string> Before, After;                            // argv of each
  std::vector<std::pair<std::string, std::string>> BeforeEnv, AfterEnv;
  std::string BeforeDir, AfterDir;  // where each side runs (empty: here)
  unsigned Runs = 5;
  std::string OutDir;
  std::string Self;        // the syncwatch executable
  double ThresholdMs = 0;  // > 0: --threshold-ms for each run
};
// Fills Opts.Before/After. False with Error when a run could not start or failed (its exit
// code and log named).
bool runInterleaved(const VerifyCommands &C, VerifyOptions &Opts, std::string &Error);

// 0: nothing slower beyond the noise; 1: the after run is slower (wall time or host time
// lost); 2: bad input (one line on stderr, nothing written).
int verifyRuns(const VerifyOptions &Opts);

} // namespace syncwatch::runtime
