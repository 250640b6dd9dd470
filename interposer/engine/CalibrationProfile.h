// SYNCWATCH_PROFILE / `syncwatch replay --profile`: the profile `syncwatch calibrate` wrote
// on the user's GPU, carried into the runtime report. Runtime findings are measurements of
// this run, so the profile changes no severity (the analyzer's --profile does that for
// predictions); it says, next to each finding about a calibrated API, what calibration
// measured for it, and the report says which profile - which GPU and driver - it ran with.
#pragma once

#include "syncwatch/finding.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

struct CalibrationProfile {
  std::string Path;
  std::string Device;  // "NVIDIA H200 (9.0), driver 13000"
  struct Measured {
    bool BlocksDevice = false;
    bool BlocksBehindBlockingStreams = false;
    double MaxMs = 0;  // the longest host time of its cases, either stream kind
    std::string Case;  // that case
  };
  std::map<std::string, Measured> Calls;  // by API; calls that failed to run are left out
  bool LegacyWaitsForBlockingStream = true;
};

// Reads a syncwatch-profile-1 file; on failure returns false with a one-line reason.
bool readCalibrationProfile(const std::string &Path, CalibrationProfile &Out, std::string &Error);

// Adds to each finding about a calibrated API (or a legacy-stream serialization) what
// calibration measured, as evidence "calibration".
void annotateWithCalibration(std::vector<Finding> &Findings, const CalibrationProfile &P);

// The report's run-level figures: the profile's path and device.
std::vector<std::pair<std::string, std::string>> calibrationFigures(const CalibrationProfile &P);

} // namespace syncwatch::runtime
