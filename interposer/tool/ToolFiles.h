// Reading inputs and writing outputs the way every `syncwatch` subcommand does: an output
// is written to a temporary file and renamed, so a failed run never leaves half a report.
#pragma once

#include <string>

namespace syncwatch::runtime {

// False when the file cannot be read.
bool readWholeFile(const std::string &Path, std::string &Text);

// Path's new content, all or nothing; false (the old file, if any, untouched) on failure.
bool writeFileAtomically(const std::string &Path, const std::string &Text);

// SARIF's %SRCROOT% for a command's --source-root: the option (relative to the working
// directory), or when it is empty the git top level of the working directory.
std::string sourceRootOption(const std::string &Given);

} // namespace syncwatch::runtime
