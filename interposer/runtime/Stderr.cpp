#include "Stderr.h"

#include <cerrno>
#include <unistd.h>

namespace syncwatch::runtime {

void writeStderr(std::string_view Text) {
  const char *P = Text.data();
  std::size_t Left = Text.size();
  while (Left > 0) {
    ssize_t N = ::write(STDERR_FILENO, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    P += N;
    Left -= static_cast<std::size_t>(N);
  }
}

} // namespace syncwatch::runtime
