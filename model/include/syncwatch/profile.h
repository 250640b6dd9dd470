// The profile `syncwatch calibrate` writes (schema syncwatch-profile-1, docs/calibration.md):
// what was measured on the user's GPU and driver. Read by both halves: the analyzer's
// --profile sets severities from it, the runtime report carries it (SYNCWATCH_PROFILE).
#pragma once

#include <map>
#include <string>

namespace syncwatch {

struct CalibrationProfile {
  std::string Path;
  std::string Device;  // "NVIDIA H200 (9.0), driver 13000"
  struct Measured {
    bool BlocksDevice = false;                 // the host waited until the device was idle
    bool BlocksBehindBlockingStreams = false;  // it waited for blocking streams' work only
    double MaxMs = 0;  // the longest host time of its cases, either stream kind
    std::string Case;  // that case
  };
  // By API; an API blocks if any measured case did (cudaFree(nullptr) does not, a real
  // cudaFree may: findings are about real calls). Calls that failed to run are left out.
  std::map<std::string, Measured, std::less<>> Calls;
  bool LegacyWaitsForBlockingStream = true;
};

// Reads a profile; on failure returns false with a one-line reason.
bool readCalibrationProfile(const std::string &Path, CalibrationProfile &Out, std::string &Error);

} // namespace syncwatch
