// SYNCWATCH_PROFILE / `syncwatch replay --profile`: the profile `syncwatch calibrate` wrote
// on the user's GPU, carried into the runtime report. Runtime findings are measurements of
// this run, so the profile changes no severity (the analyzer's --profile does that for
// predictions); it says, next to each finding about a calibrated API, what calibration
// measured for it, and the report says which profile - which GPU and driver - it ran with.
#pragma once

#include "syncwatch/finding.h"
#include "syncwatch/profile.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

// Adds to each finding about a calibrated API (or a legacy-stream serialization) what
// calibration measured, as evidence "calibration".
void annotateWithCalibration(std::vector<Finding> &Findings, const CalibrationProfile &P);

// The report's run-level figures: the profile's path and device.
std::vector<std::pair<std::string, std::string>> calibrationFigures(const CalibrationProfile &P);

} // namespace syncwatch::runtime
