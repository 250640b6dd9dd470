// Reads back a JSON report that writeJson wrote (syncwatch/report.h): `syncwatch merge`
// joins the per-process reports of a job. Strict about the shape that matters (findings
// with a rule, a location and a message), lenient about what a newer writer may add.
#pragma once

#include "syncwatch/report.h"

#include <string>

namespace syncwatch {

// On failure returns false and says why in Error ("not a syncwatch report: ...", or the
// field whose value is of the wrong type or out of range: "findings[0].evidence.totalMs
// '-50.0' is negative: a measured time never is").
bool readJsonReport(const std::string &Text, Report &Out, std::string &Error);
class JsonValue;
// The same, for a report inside another document (a result-cache entry).
bool readJsonReport(const JsonValue &Doc, Report &Out, std::string &Error);

// A "coverage" array (JSON report, or a runtime SARIF run's properties), appended to Out.
// False, with Error naming the entry's field after Field ("coverage[3].totalMs '-1' is
// negative: ..."), for a count or time that is not one (evidence_number.h).
bool readCoverage(const JsonValue &V, const std::string &Field, std::vector<CoveredCall> &Out, std::string &Error);

} // namespace syncwatch
