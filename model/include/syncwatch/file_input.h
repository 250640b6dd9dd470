// The one way every syncwatch tool reads a user's input file (a recording, a report, a
// SARIF log, a baseline, an allowlist, a profile): a regular file, or a clear refusal. A
// FIFO with no writer blocked `replay`, `merge`, `confirm --runtime` and `syncwatch-lint
// --baseline` forever, and a directory read as empty ("killed before exit?"). The write
// side is file_output.h.
#pragma once

#include <string>

namespace syncwatch {

// "" when Path is a regular file (or a link to one), else what it is instead, as the end of
// a sentence that starts with the path: "is a FIFO, not a regular file (...)", "is a
// directory, not a file", "cannot read it: No such file or directory".
std::string notRegularFileError(const std::string &Path);

// All of Path, a regular file. False, with Error as notRegularFileError says it, or "cannot
// read it: <errno text>" when it cannot be opened or read.
bool readRegularFile(const std::string &Path, std::string &Text, std::string &Error);

// Those errors for a message that already says "cannot read the profile 'P'": the errno
// text alone ("No such file or directory"), or "it is a FIFO, ...".
std::string unreadableReason(const std::string &Error);

} // namespace syncwatch
