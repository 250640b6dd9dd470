// Reading inputs and writing outputs the way every `syncwatch` subcommand does: an output
// is written to a temporary file and renamed, so a failed run never leaves half a report.
#pragma once

#include <string>

namespace syncwatch::runtime {

// All of a regular file (syncwatch/file_input.h). False, with Error ending a sentence that
// starts with the path: "cannot be read: No such file or directory", "is a directory, not a
// file", "is a FIFO, not a regular file (...)": a FIFO is refused, not waited on forever.
bool readWholeFile(const std::string &Path, std::string &Text, std::string &Error);

// (Outputs are written with syncwatch/file_output.h: all or nothing, the reason on failure.)

// SARIF's %SRCROOT% for a command's --source-root: the option (relative to the working
// directory), or when it is empty the git top level of the working directory.
std::string sourceRootOption(const std::string &Given);

} // namespace syncwatch::runtime
