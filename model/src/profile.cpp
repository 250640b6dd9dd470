#include "syncwatch/profile.h"

#include "syncwatch/file_input.h"
#include "syncwatch/json_value.h"

#include <algorithm>

namespace syncwatch {

bool readCalibrationProfile(const std::string &Path, CalibrationProfile &Out, std::string &Error) {
  std::string Text, Why;
  if (!readRegularFile(Path, Text, Why)) {  // a FIFO refused, not waited on
    Error = "cannot read profile '" + Path + "': " + unreadableReason(Why);
    return false;
  }
  JsonValue Doc;
  if (!JsonValue::parse(Text, Doc, Why)) {
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
    P.Device += ", driver " + std::to_string(Dev["driverVersion"].whole<long long>());
  P.LegacyWaitsForBlockingStream = Doc["legacyStream"]["waitsForBlockingStream"].boolean(true);
  for (const JsonValue &C : Doc["calls"].array()) {
    const std::string &Api = C["api"].string();
    if (Api.empty() || !C["ok"].boolean(true))
      continue;  // a call that failed to run measured nothing
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

} // namespace syncwatch
