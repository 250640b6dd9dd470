// The numbers a reader takes from another process's output - a report's evidence, figures
// and coverage, a gate baseline, a recording's fields - typed and range-checked (issue 42).
// Read with strtod/strtoull they were anything: "-50.0" made every stall not-observed and
// the gate pass, a JSON number where syncwatch writes a string read as 0, 1e400 as inf, a
// negative wrapped through uint64_t into "18446744073.59 s", a recording's integer past
// 2^64 into "801505682.08 s". Every reader now says no instead, naming the field (exit 2):
//   "findings[0].evidence.totalMs '-50.0' is negative: a measured time never is"
// Each function returns "" and sets Out, or that sentence with Field at its head.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncwatch {

class JsonValue;

// The largest time a report may hold, about 31 years: a sum of such times over many ranks
// still fits the 64-bit nanoseconds every time is formatted in.
constexpr double kMaxEvidenceMs = 1e12;

// A time in ms as the tools write it into evidence and figures: a string ("81.600000").
std::string readMsText(std::string_view Field, std::string_view Text, double &Out);
// A count as the tools write it (decimal digits, "12"), at most Max.
std::string readCountText(std::string_view Field, std::string_view Text, std::uint64_t &Out,
                          std::uint64_t Max = UINT64_MAX);

// The same where the tools write JSON numbers (a report's coverage, a gate baseline).
std::string readMsJson(std::string_view Field, const JsonValue &V, double &Out);
std::string readCountJson(std::string_view Field, const JsonValue &V, std::uint64_t &Out);
// A value the tools write as a string (evidence, figures, process): a number there is not
// the tool's, and reading it as "" turned a stall into not-observed.
std::string readStringJson(std::string_view Field, const JsonValue &V, std::string &Out);

// The run-wide figures a reader computes with: a name ending in "Ms" is a time
// ("hostTimeLostMs", "coverage.launchesUnwatchedMs"), steps.count a count. Prefix names
// where they are ("figures.", "runs[0].properties.figures.").
std::string figuresError(std::string_view Prefix, const std::vector<std::pair<std::string, std::string>> &Figures);

} // namespace syncwatch
