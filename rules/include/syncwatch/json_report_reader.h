// Reads back a JSON report that writeJson wrote (syncwatch/report.h): `syncwatch merge`
// joins the per-process reports of a job. Strict about the shape that matters (findings
// with a rule, a location and a message), lenient about what a newer writer may add.
#pragma once

#include "syncwatch/report.h"

#include <string>

namespace syncwatch {

// On failure returns false and says why in Error ("not a syncwatch report: ...").
bool readJsonReport(const std::string &Text, Report &Out, std::string &Error);
class JsonValue;
// The same, for a report inside another document (a result-cache entry).
bool readJsonReport(const JsonValue &Doc, Report &Out, std::string &Error);

// A "coverage" array (JSON report, or a runtime SARIF run's properties).
std::vector<CoveredCall> readCoverage(const JsonValue &V);

} // namespace syncwatch
