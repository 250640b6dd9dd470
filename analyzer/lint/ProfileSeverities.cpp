#include "ProfileSeverities.h"

#include "syncwatch/catalogue.h"

namespace syncwatch {

namespace {

bool setLevel(Finding &F, Severity Level, const std::string &Why) {
  F.Evidence.push_back({"profile", Why});
  if (F.Level == Level)
    return false;
  F.Level = Level;
  return true;
}

} // namespace

unsigned applyProfile(std::vector<Finding> &Findings, const CalibrationProfile &P) {
  unsigned Changed = 0;
  for (Finding &F : Findings) {
    const std::string *Api = evidenceOf(F, "api");
    CalibrationUse Use = calibrationUse(F.Rule);  // rules.def's Calibration column
    if (Use == CalibrationUse::LegacyWait) {
      Changed += setLevel(F, P.LegacyWaitsForBlockingStream ? Severity::Warning : Severity::Note,
                          std::string("legacy-stream work ") +
                              (P.LegacyWaitsForBlockingStream ? "waited" : "did not wait") +
                              " for a blocking stream on " + P.Device);
      continue;
    }
    if (!Api || Use == CalibrationUse::None)
      continue;
    auto Measured = P.Calls.find(*Api);
    if (Measured == P.Calls.end())
      continue;  // not measured: the catalogue's judgement stands
    bool Blocks = Measured->second.BlocksDevice;
    if (Use == CalibrationUse::HostBlockBehindStreams)
      Blocks = Blocks || Measured->second.BlocksBehindBlockingStreams;
    Changed += setLevel(F, Blocks ? Severity::Warning : Severity::Note,
                        *Api + (Blocks ? " blocked the host" : " did not block the host") + " on " + P.Device);
  }
  return Changed;
}

} // namespace syncwatch
