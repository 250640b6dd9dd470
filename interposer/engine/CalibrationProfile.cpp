#include "CalibrationProfile.h"

#include "JsonValue.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace syncwatch::runtime {

bool readCalibrationProfile(const std::string &Path, CalibrationProfile &Out, std::string &Error) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = "cannot read '" + Path + "'";
    return false;
  }
  std::stringstream Text;
  Text << In.rdbuf();
  JsonValue Doc;
  std::string Why;
  if (!JsonValue::parse(Text.str(), Doc, Why)) {
    Error = "'" + Path + "' is not JSON (" + Why + ")";
    return false;
  }
  if (Doc["schema"].string() != "syncwatch-profile-1") {
    Error = "'" + Path + "' is not a syncwatch profile (schema syncwatch-profile-1; write one with `syncwatch calibrate`)";
    return false;
  }
  if (Doc["calls"].kind() != JsonValue::Kind::Array) {
    Error = "'" + Path + "' has no \"calls\"";
    return false;
  }
  CalibrationProfile P;
  P.Path = Path;
  const JsonValue &Dev = Doc["device"];
  P.Device = Dev["name"].string().empty() ? "unknown GPU" : Dev["name"].string();
  if (!Dev["computeCapability"].string().empty())
    P.Device += " (" + Dev["computeCapability"].string() + ")";
  if (Dev["driverVersion"].kind() == JsonValue::Kind::Number)
    P.Device += ", driver " + std::to_string(static_cast<long long>(Dev["driverVersion"].number()));
  P.LegacyWaitsForBlockingStream = Doc["legacyStream"]["waitsForBlockingStream"].boolean(true);
  for (const JsonValue &C : Doc["calls"].array()) {
    const std::string &Api = C["api"].string();
    if (Api.empty() || !C["ok"].boolean(true))
      continue;  // a call that failed to run measured nothing
    // An API blocks if any measured case did (cudaFree(nullptr) does not, a real cudaFree
    // may): what the runtime saw is a real call.
    CalibrationProfile::Measured &M = P.Calls[Api];
    M.BlocksDevice = M.BlocksDevice || C["blocksDevice"].boolean();
    M.BlocksBehindBlockingStreams = M.BlocksBehindBlockingStreams || C["blocksBehindBlockingStreams"].boolean();
    double Ms = std::max(C["nonBlockingMs"].number(), C["blockingMs"].number());
    if (M.Case.empty() || Ms > M.MaxMs) {
      M.MaxMs = Ms;
      M.Case = C["case"].string();
    }
  }
  Out = std::move(P);
  return true;
}

namespace {
std::string millis(double Ms) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.3g ms", Ms);
  return Buf;
}
} // namespace

void annotateWithCalibration(std::vector<Finding> &Findings, const CalibrationProfile &P) {
  for (Finding &F : Findings) {
    if (F.Rule == "syncwatch-default-stream" || F.Rule == "syncwatch-blocking-stream") {
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
