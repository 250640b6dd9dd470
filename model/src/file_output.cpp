#include "syncwatch/file_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace syncwatch {
namespace {

bool writeAllImpl(int Fd, std::string_view Text, int &Errno) {
  const char *P = Text.data();
  std::size_t Left = Text.size();
  while (Left > 0) {
    ssize_t N = ::write(Fd, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      Errno = N < 0 ? errno : EIO;
      return false;
    }
    P += N;
    Left -= static_cast<std::size_t>(N);
  }
  return true;
}

// The mode a new file gets: 0666 less the process's umask (read from /proc, since umask()
// would have to set it to read it).
mode_t newFileMode() {
  mode_t Mask = 022;
  if (FILE *F = std::fopen("/proc/self/status", "r")) {
    char Line[256];
    while (std::fgets(Line, sizeof Line, F))
      if (std::strncmp(Line, "Umask:", 6) == 0)
        Mask = static_cast<mode_t>(std::strtoul(Line + 6, nullptr, 8));
    std::fclose(F);
  }
  return 0666 & ~Mask;
}

} // namespace

bool writeAllToFd(int Fd, std::string_view Text, int &Errno) { return writeAllImpl(Fd, Text, Errno); }

std::string errnoText(int Errno) { return std::strerror(Errno); }

bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Error) {
  struct stat Old;
  bool Exists = ::stat(Path.c_str(), &Old) == 0;
  if (Exists && (S_ISCHR(Old.st_mode) || S_ISFIFO(Old.st_mode))) {
    // /dev/null, /dev/stdout, a named pipe read by another program: nothing to replace, so
    // written as it is (a pipe with no reader is an error, not a wait).
    int Fd = ::open(Path.c_str(), O_WRONLY | O_CLOEXEC | (S_ISFIFO(Old.st_mode) ? O_NONBLOCK : 0));
    int Errno = 0;
    bool Ok = Fd >= 0 && writeAllToFd(Fd, Contents, Errno);
    if (Fd < 0)
      Errno = errno;
    if (Fd >= 0 && ::close(Fd) != 0 && Ok)
      Ok = false, Errno = errno;
    if (!Ok)
      Error = Errno == ENXIO ? "it is a pipe with no reader" : errnoText(Errno);
    return Ok;
  }
  if (Exists && !S_ISREG(Old.st_mode)) {
    Error = S_ISDIR(Old.st_mode) ? "it is a directory" : "it is not a regular file";
    return false;
  }
  std::string Dir = Path.find('/') == std::string::npos ? "." : Path.substr(0, Path.rfind('/') + 1);
  std::string Base = Path.substr(Path.rfind('/') == std::string::npos ? 0 : Path.rfind('/') + 1);
  std::string Temp = (Dir == "." ? std::string() : Dir) + "." + Base + ".syncwatch-XXXXXX";
  std::string Buf = Temp;
  int Fd = ::mkstemp(Buf.data());
  if (Fd < 0) {
    Error = errnoText(errno);
    return false;
  }
  Temp = Buf;
  int Errno = 0;
  bool Ok = writeAllToFd(Fd, Contents, Errno);
  if (Ok && ::fchmod(Fd, Exists ? (Old.st_mode & 07777) : newFileMode()) != 0)
    Ok = false, Errno = errno;
  if (Ok && ::fsync(Fd) != 0)
    Ok = false, Errno = errno;
  if (::close(Fd) != 0 && Ok)
    Ok = false, Errno = errno;
  if (Ok && ::rename(Temp.c_str(), Path.c_str()) != 0)
    Ok = false, Errno = errno;
  if (!Ok) {
    ::unlink(Temp.c_str());
    Error = errnoText(Errno);
    return false;
  }
  return true;
}

bool sameFile(const std::string &A, const std::string &B) {
  struct stat SA, SB;
  return ::stat(A.c_str(), &SA) == 0 && ::stat(B.c_str(), &SB) == 0 && SA.st_dev == SB.st_dev && SA.st_ino == SB.st_ino;
}

std::string outputThatIsAnInput(const std::string &Output, const std::vector<std::string> &Inputs) {
  if (Output.empty() || Output == "-")
    return "";
  for (const std::string &In : Inputs)
    if (sameFile(Output, In))
      return In;
  return "";
}

bool writeStdout(std::string_view Text, std::string &Error) {
  struct sigaction Ignore, Old;
  std::memset(&Ignore, 0, sizeof Ignore);
  Ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &Ignore, &Old);
  int Errno = 0;
  bool Ok = writeAllToFd(1, Text, Errno);
  sigaction(SIGPIPE, &Old, nullptr);
  if (!Ok)
    Error = "cannot write to standard output: " + errnoText(Errno);
  return Ok;
}

} // namespace syncwatch
