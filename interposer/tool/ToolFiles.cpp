#include "ToolFiles.h"

#include "syncwatch/report.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace syncwatch::runtime {

bool readWholeFile(const std::string &Path, std::string &Text) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::stringstream S;
  S << In.rdbuf();
  Text = S.str();
  return true;
}

std::string sourceRootOption(const std::string &Given) {
  if (!Given.empty() && Given[0] == '/')
    return Given;
  char Cwd[4096];
  std::string Here = ::getcwd(Cwd, sizeof Cwd) ? Cwd : ".";
  return Given.empty() ? defaultSourceRoot(Here) : Here + "/" + Given;
}

} // namespace syncwatch::runtime
