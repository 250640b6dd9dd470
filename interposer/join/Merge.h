// `syncwatch merge`: the per-process reports or recordings of one job (torchrun's ranks,
// MPI ranks, DataLoader workers) as one answer: one finding per (site, rule) over all ranks
// with which ranks hit it and what it cost each, a straggler line, and one trace with a
// process per rank. docs/runtime.md, "Jobs of many processes".
#pragma once

#include "syncwatch/report.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct MergeOptions {
  std::string Format = "text";  // text | json | sarif | markdown
  std::string LinkBase;         // markdown: links to BASE/<path under the source root>#L<line>
  std::string Output;           // empty: stdout
  std::string Trace;            // a merged Chrome trace (needs recordings)
  std::string SourceRoot;       // SARIF's %SRCROOT% (default: git top level of the cwd)
  // --path-map OLD=NEW: each input's paths as they read in this checkout (PathMaps.h)
  std::vector<std::pair<std::string, std::string>> PathMaps;
  // Inputs of another job are an error unless they carry no job id at all.
  bool Quiet = false;
};

// A runtime report (JSON or SARIF of libsyncwatch, replay or merge) or a recording (analyzed
// as replay does), for merge and confirm. False, with Error, for anything else.
bool loadRuntimeReport(const std::string &File, Report &Out, std::string &Error);

// Exit code as the other commands: 0 no finding, 1 findings, 2 bad input (said on stderr,
// nothing written).
int mergeReports(const std::vector<std::string> &Inputs, const MergeOptions &Opts);

} // namespace syncwatch::runtime
