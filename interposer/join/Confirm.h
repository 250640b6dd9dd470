// `syncwatch confirm`: each static warning of syncwatch-lint joined with what the runtime
// measured at its line - confirmed (it stalled, this much), not-observed (the line ran and
// never stalled), not-exercised (the line never ran) - and the runtime's findings that no
// static warning names (runtime-only). One pre-merge gate over both halves (docs/ci.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct ConfirmOptions {
  std::string Static;                 // syncwatch-lint's SARIF
  std::vector<std::string> Runtime;   // reports (JSON/SARIF) or recordings, one per process
  std::string Format = "text";        // text | json | sarif | markdown
  std::string LinkBase;               // markdown: links to BASE/<path under the source root>#L<line>
  std::string Output;                 // empty: stdout
  std::string FailOn = "confirmed";   // confirmed | warning | runtime
  // A measured stall below this is not-observed: the runtime's own threshold for a host
  // wait. Pageable copies are measured whatever their cost (a 16-byte one takes 10 us).
  double MinCostMs = 1;
  std::vector<std::pair<std::string, std::string>> PathMaps;  // runtime prefix -> static prefix
  std::string SourceRoot;             // SARIF %SRCROOT% (default: the static log's)
};

// 0: nothing the gate fails on; 1: the gate fails; 2: bad input (one line on stderr,
// nothing written).
int confirmFindings(const ConfirmOptions &Opts);

} // namespace syncwatch::runtime
