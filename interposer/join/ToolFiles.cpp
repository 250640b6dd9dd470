#include "ToolFiles.h"

#include "syncwatch/file_input.h"
#include "syncwatch/report.h"

#include <unistd.h>

#include <cstdio>

namespace syncwatch::runtime {

bool readWholeFile(const std::string &Path, std::string &Text, std::string &Error) {
  return readRegularFile(Path, Text, Error);
}

std::string sourceRootOption(const std::string &Given) {
  if (!Given.empty() && Given[0] == '/')
    return Given;
  char Cwd[4096];
  std::string Here = ::getcwd(Cwd, sizeof Cwd) ? Cwd : ".";
  return Given.empty() ? defaultSourceRoot(Here) : Here + "/" + Given;
}

} // namespace syncwatch::runtime
