#include "syncwatch/file_input.h"

#include "syncwatch/file_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace syncwatch {

namespace {

const std::string kUnreadable = "cannot read it: ";

std::string kindError(mode_t Mode) {
  if (S_ISREG(Mode))
    return "";
  if (S_ISDIR(Mode))
    return "is a directory, not a file";
  // Said as the lint says a FIFO given as a source (analyzer/unit/UnitRunner.cpp).
  if (S_ISFIFO(Mode))
    return "is a FIFO, not a regular file (it would be waited on for a writer forever)";
  if (S_ISSOCK(Mode))
    return "is a socket, not a regular file";
  if (S_ISCHR(Mode) || S_ISBLK(Mode))
    return "is a device, not a regular file";
  return "is not a regular file";
}

} // namespace

std::string unreadableReason(const std::string &Error) {
  return Error.rfind(kUnreadable, 0) == 0 ? Error.substr(kUnreadable.size()) : "it " + Error;
}

std::string notRegularFileError(const std::string &Path) {
  struct stat St;
  if (::stat(Path.c_str(), &St) != 0)
    return kUnreadable + errnoText(errno);
  return kindError(St.st_mode);
}

bool readRegularFile(const std::string &Path, std::string &Text, std::string &Error) {
  if (Error = notRegularFileError(Path); !Error.empty())
    return false;
  // O_NONBLOCK: a FIFO put in the file's place since the stat above opens at once instead
  // of waiting for a writer, and fstat refuses it. A regular file reads as ever.
  int Fd = ::open(Path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0) {
    Error = kUnreadable + errnoText(errno);
    return false;
  }
  struct stat St;
  if (::fstat(Fd, &St) != 0 || !(Error = kindError(St.st_mode)).empty()) {
    if (Error.empty())
      Error = kUnreadable + errnoText(errno);
    ::close(Fd);
    return false;
  }
  std::string Out;
  char Buf[1 << 16];
  while (true) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      Error = kUnreadable + errnoText(errno);
      ::close(Fd);
      return false;
    }
    if (N == 0)
      break;
    Out.append(Buf, static_cast<std::size_t>(N));
  }
  ::close(Fd);
  Text = std::move(Out);
  return true;
}

} // namespace syncwatch
