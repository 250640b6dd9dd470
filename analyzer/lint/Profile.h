// --profile FILE: severities from what `syncwatch calibrate` measured on the user's own GPU
// and driver, instead of the catalogue's H200 measurements. A finding about a call that did
// not block there becomes a note; one about a call that did becomes a warning.
#pragma once

#include "syncwatch/finding.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace syncwatch {

struct MeasuredProfile {
  std::string Device;                 // "NVIDIA H200 (9.0), driver 13000"
  // API -> did any measured case block the host device-wide; did one wait behind blocking
  // streams (a legacy-stream call) only.
  std::map<std::string, bool, std::less<>> BlocksDevice, BlocksBehindBlockingStreams;
  bool LegacyWaitsForBlockingStream = true;
};

// Reads a profile written by syncwatch-calibrate (schema syncwatch-profile-1).
llvm::Expected<MeasuredProfile> readProfile(const std::string &Path);

// Sets each finding's severity from the profile where it measured the finding's API (or,
// for the legacy-stream rules, the legacy stream's behaviour), and adds the measurement to
// the finding's evidence. Returns how many findings changed severity.
unsigned applyProfile(std::vector<Finding> &Findings, const MeasuredProfile &P);

} // namespace syncwatch
