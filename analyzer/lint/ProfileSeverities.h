// --profile FILE: severities from what `syncwatch calibrate` measured on the user's GPU and
// driver (syncwatch/profile.h), instead of the catalogue's H200 measurements. A finding
// about a call that did not block there becomes a note; one that did becomes a warning.
#pragma once

#include "syncwatch/finding.h"
#include "syncwatch/profile.h"

#include <vector>

namespace syncwatch {

// Sets each finding's severity from the profile where it measured the finding's API (or,
// for the legacy-stream rules, the legacy stream's behaviour), and adds the measurement to
// the finding's evidence. Returns how many findings changed severity.
unsigned applyProfile(std::vector<Finding> &Findings, const CalibrationProfile &P);

} // namespace syncwatch
