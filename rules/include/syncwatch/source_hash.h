// SHA-256 of the source files a runtime report names, as the process read them when it
// wrote the report: `syncwatch confirm` compares them with the lint's run.artifacts hashes
// and says where the checkout the lint analyzed and the one the program was built from
// disagree (the lines may not match). The digest is OpenSSL's (libcrypto, opened at the
// time of the report, not linked: the runtime library loads into every process); without
// libcrypto there are no hashes and nothing is compared.
#pragma once

#include "syncwatch/report.h"

#include <string>
#include <vector>

namespace syncwatch {

// Lower-case hex SHA-256 of a regular file's content; "" when it cannot be read or hashed.
std::string sha256OfFile(const std::string &Path);

// An artifact per distinct file the findings, their notes and the coverage name (absolute
// paths only), with its hash where one could be taken; sorted by path.
std::vector<Artifact> sourceArtifacts(const Report &R);

} // namespace syncwatch
