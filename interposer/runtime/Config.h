// SYNCWATCH_* environment variables (docs/runtime.md). A bad value gets one message on
// stderr and the default.
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

struct Config {
  std::string OutDir;                 // SYNCWATCH_OUT: where JSON/SARIF (and recordings) go
  std::uint64_t ThresholdNs = 1'000'000;  // SYNCWATCH_THRESHOLD_MS (default 1)
  bool Record = false;                // SYNCWATCH_RECORD=1: also write the raw event stream
  bool Kernels = true;                // SYNCWATCH_KERNELS=0: no kernel activity (cheaper; no serialization findings)
  std::size_t WindowEvents = 65536;  // SYNCWATCH_WINDOW: events kept before analysis
  bool Quiet = false;                 // SYNCWATCH_QUIET=1: no summary on stderr
};

// Reads the environment; Messages receives one line per rejected value.
Config readConfig(std::string &Messages);

} // namespace syncwatch::runtime
