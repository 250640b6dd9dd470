// --path-map OLD=NEW, repeatable: a report's or recording's paths (made in another
// checkout: the GPU machine's /work/main/...) as they read here. The first OLD that a path
// starts with wins; NEW may be empty (`--path-map /work/main/=`: repo-relative). Used by
// replay and merge, which rewrite the report, and by confirm, which matches with them.
#pragma once

#include "syncwatch/report.h"

#include <string>
#include <utility>
#include <vector>

namespace syncwatch::runtime {

using PathMaps = std::vector<std::pair<std::string, std::string>>;

std::string mapPath(const std::string &Path, const PathMaps &Maps);
// The paths inside a message or an evidence value ("[Python: /work/main/x.py:32 ...]"):
// each OLD that starts a path (not in the middle of one) is replaced.
std::string mapPathsInText(const std::string &Text, const PathMaps &Maps);
// Every path of R: findings, notes, messages, evidence, coverage. Absolute: a path mapped to
// a relative one is taken from the working directory (JSON and SARIF, whose URIs are then
// relative to --source-root as usual); text keeps it as mapped.
void applyPathMaps(Report &R, const PathMaps &Maps, bool Absolute);

} // namespace syncwatch::runtime
