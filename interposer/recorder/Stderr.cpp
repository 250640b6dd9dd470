#include "Stderr.h"

#include "syncwatch/file_output.h"

#include <unistd.h>

namespace syncwatch::runtime {

void writeStderr(std::string_view Text) {
  int Errno = 0;
  (void)writeAllToFd(STDERR_FILENO, Text, Errno);  // nowhere left to say that it failed
}

} // namespace syncwatch::runtime
