// The measured call sites of runs, as their reports name them, and the same site found
// again in another build's runs: what `syncwatch verify` compares and `syncwatch gate`
// holds against its budget, allowlist and baseline. Sites are matched as confirm matches a
// static warning: fingerprint, then file and line, then function and API (a fix moves
// lines), always within one rule.
#pragma once

#include "syncwatch/finding.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace syncwatch::runtime {

// One call site, as a run's reports name it.
struct SiteId {
  std::string Rule, File, Function, Api, Fingerprint;
  unsigned Line = 0;
  std::string label() const {
    std::string Where = File.empty() ? Function : File + ":" + std::to_string(Line);
    return Where + " " + Rule + (Api.empty() ? "" : " (" + Api + ")");
  }
};
SiteId siteOf(const Finding &F);

// One run: the reports (JSON) or recordings its processes wrote, and its wall time when
// verify ran it itself (< 0: unknown).
struct VerifyRun {
  std::vector<std::string> Files;
  double WallMs = -1;
};

// Runs of one build, loaded: per run the blocked ms per site and the run's figures. A site
// is a time measured at a line: the count-only rule (syncwatch-torch-current-stream) and
// findings without a measurement are not sites here.
struct Side {
  std::vector<SiteId> Sites;                                // index = site number
  std::vector<Severity> Levels;                             // per site: the highest in any run
  std::vector<std::map<std::string, double>> ThreadMs;      // per site: ms by thread label, all runs
  std::vector<std::map<std::size_t, double>> BlockedMs;     // per run: site -> ms
  std::vector<double> WallMs, GpuIdleMs, HostLostMs;        // per run
  bool HaveWall = true;      // every run has a wall time or, failing that, a CUDA span
  bool MeasuredWall = true;  // every run's is a wall time verify measured (not the span)
  // Runs whose reports traced no kernel (figures.kernelsTraced "none": every launch was
  // onto a non-blocking stream, which the fast path does not trace): their GPU idle time is
  // the whole span, not the GPU's.
  unsigned UntracedRuns = 0;
  // Per run, the worst step of any of its processes (figures steps.*, SYNCWATCH_STEP):
  // Count 0 when none marked steps.
  struct Steps {
    std::string Name, Worst;  // Worst: "#17 of 500 (main, 3.200 s into the run, ...)"
    unsigned long Count = 0;
    double WorstMs = 0, MeanMs = 0;
  };
  std::vector<Steps> StepsOfRun;
};
bool loadSide(const std::vector<VerifyRun> &Runs, Side &Out, std::string &Error);

// --path-map OLD=NEW: a site's file as the other build's checkout names it.
void mapSitePaths(Side &S, const std::vector<std::pair<std::string, std::string>> &PathMaps);

// For each of A's sites, B's site that is the same call (-1: none), each of B's taken once.
std::vector<long> matchSites(const Side &B, const Side &A);

} // namespace syncwatch::runtime
