// The one way every syncwatch tool writes a user's file (a report, a baseline, a trace, a
// source under --fix): never half a file. The new content goes to a temporary file in the
// same directory, written in full, checked, fsync'd, given the old file's mode, then renamed
// over the target. On any failure (a full disk, a read-only directory, a path that is a
// directory) the old file stays byte for byte as it was, and the reason comes back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace syncwatch {

// False on failure, with Error saying why ("No space left on device", ...).
bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Error);

// Whether two paths name one existing file (same device and inode): an output that is one
// of the inputs is refused before anything runs.
bool sameFile(const std::string &A, const std::string &B);
// The first of Inputs that Output names, or "" when none.
std::string outputThatIsAnInput(const std::string &Output, const std::vector<std::string> &Inputs);

// All of Text to standard output (fd 1, unbuffered). False with Error on a write error: a
// closed stdout, a full disk, a reader that went away (EPIPE: SIGPIPE is ignored meanwhile).
bool writeStdout(std::string_view Text, std::string &Error);

// All of Text to Fd, retrying short writes and EINTR; false with Errno on an error. Uses
// write(2) only (libsyncwatch.so's stderr messages go through it at load and exit).
bool writeAllToFd(int Fd, std::string_view Text, int &Errno);

// errno's text ("Permission denied").
std::string errnoText(int Errno);

} // namespace syncwatch
