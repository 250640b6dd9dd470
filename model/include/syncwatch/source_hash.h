// SHA-256 of the source files a runtime report names, as the process read them when it
// wrote the report: `syncwatch confirm` compares them with the lint's run.artifacts hashes
// and says where the checkout the lint analyzed and the one the program was built from
// disagree (the lines may not match). The digest is OpenSSL's (libcrypto, opened at the
// time of the report, not linked: the runtime library loads into every process); without
// libcrypto, or after OpenSSL was cleaned up, there are no hashes and nothing is compared.
#pragma once

#include "syncwatch/report.h"

#include <string>
#include <vector>

namespace syncwatch {

// Opens and initializes libcrypto now, telling OpenSSL not to clean itself up at exit.
// The runtime library calls it before it registers the atexit handler that writes the
// report. OpenSSL registers its own clean-up at exit when it is first initialized, and
// atexit handlers run last-registered first. So when the program initialized OpenSSL after
// syncwatch started (a PyTorch process imports hashlib late), OpenSSL was cleaned up
// before the report, and EVP_Digest crashed there: every preloaded PyTorch training script
// on the H200 died of SIGSEGV at exit, with no report. Initialized first, OpenSSL never
// cleans up. Initialized by the program before syncwatch started, its clean-up runs after
// the report. Idempotent; does nothing without libcrypto.
void prepareSourceHashing();

// Lower-case hex SHA-256 of a regular file's content; "" when it cannot be read or hashed.
std::string sha256OfFile(const std::string &Path);

// An artifact per distinct file the findings, their notes and the coverage name (absolute
// paths only), with its hash where one could be taken; sorted by path.
std::vector<Artifact> sourceArtifacts(const Report &R);

} // namespace syncwatch
