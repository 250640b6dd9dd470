// Reads back a SARIF 2.1.0 log that syncwatch wrote (syncwatch-lint, libsyncwatch,
// `syncwatch merge`): `syncwatch confirm` joins the lint's SARIF with the runtime's. Paths
// come back absolute: a URI under %SRCROOT% is joined to the run's originalUriBaseIds.
#pragma once

#include "syncwatch/report.h"

#include <string>

namespace syncwatch {

// The first run of the log. Results' properties come back as evidence (a nested object's
// members as "object.key"). False, with Error, when it is not SARIF.
bool readSarifReport(const std::string &Text, Report &Out, std::string &Error);

// "file:///a%20b/c.cu" -> "/a b/c.cu"; a relative URI reference is decoded the same way.
std::string uriToPath(const std::string &Uri);

} // namespace syncwatch
