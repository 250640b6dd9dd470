#include "CalibrationEvidence.h"

#include "syncwatch/catalogue.h"

#include <cstdio>

namespace syncwatch::runtime {

namespace {
std::string millis(double Ms) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.3g ms", Ms);
  return Buf;
}
} // namespace

void annotateWithCalibration(std::vector<Finding> &Findings, const CalibrationProfile &P) {
  for (Finding &F : Findings) {
    if (calibrationUse(F.Rule) == CalibrationUse::LegacyWait) {  // rules.def's Calibration column
      F.Evidence.push_back({"calibration", std::string("legacy-stream work ") +
                                               (P.LegacyWaitsForBlockingStream ? "waited" : "did not wait") +
                                               " for a blocking stream in calibration on " + P.Device});
      continue;
    }
    const std::string *Api = evidenceOf(F, "api");
    if (!Api)
      continue;
    auto It = P.Calls.find(*Api);
    if (It == P.Calls.end())
      continue;
    const CalibrationProfile::Measured &M = It->second;
    std::string What = M.BlocksDevice ? "blocked the host until the device was idle"
                       : M.BlocksBehindBlockingStreams ? "blocked the host behind blocking streams"
                                                       : "did not block the host";
    F.Evidence.push_back({"calibration", *Api + " " + What + " in calibration on " + P.Device + " (longest case '" +
                                             M.Case + "': " + millis(M.MaxMs) + ")"});
  }
}

std::vector<std::pair<std::string, std::string>> calibrationFigures(const CalibrationProfile &P) {
  return {{"calibrationProfile", P.Path}, {"calibrationDevice", P.Device}};
}

} // namespace syncwatch::runtime
