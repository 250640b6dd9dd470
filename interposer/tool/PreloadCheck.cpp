#include "PreloadCheck.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

extern char **environ;

namespace syncwatch::runtime {

std::vector<std::string> notFoundIn(const std::string &Trace) {
  std::vector<std::string> Missing;
  std::istringstream In(Trace);
  std::string Line;
  while (std::getline(In, Line)) {
    std::size_t Arrow = Line.find(" => not found");
    if (Arrow == std::string::npos)
      continue;
    std::size_t Begin = Line.find_first_not_of(" \t");
    Missing.push_back(Line.substr(Begin, Arrow - Begin));
  }
  return Missing;
}

std::vector<std::string> missingDependencies(const std::string &Lib) {
  // The traced program is this tool itself: its own dependencies are there (it runs), so
  // every "not found" is Lib's.
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E)
    if (std::strncmp(*E, "LD_PRELOAD=", 11) != 0 && std::strncmp(*E, "LD_TRACE_LOADED_OBJECTS=", 24) != 0)
      Env.push_back(*E);
  Env.push_back("LD_PRELOAD=" + Lib);
  Env.push_back("LD_TRACE_LOADED_OBJECTS=1");
  std::vector<char *> EnvP;
  for (std::string &E : Env)
    EnvP.push_back(E.data());
  EnvP.push_back(nullptr);

  int Pipe[2];
  if (::pipe2(Pipe, O_CLOEXEC) != 0)
    return {};
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&Actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char Self[] = "/proc/self/exe";
  char *Argv[] = {Self, nullptr};
  pid_t Pid = -1;
  int Rc = posix_spawn(&Pid, Self, &Actions, nullptr, Argv, EnvP.data());
  posix_spawn_file_actions_destroy(&Actions);
  ::close(Pipe[1]);
  std::string Trace;
  char Buf[4096];
  for (ssize_t N; Rc == 0 && (N = ::read(Pipe[0], Buf, sizeof Buf)) != 0;) {
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      break;
    Trace.append(Buf, static_cast<std::size_t>(N));
  }
  ::close(Pipe[0]);
  if (Rc != 0)
    return {};
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return notFoundIn(Trace);
}

std::string cannotPreloadMessage(const std::string &Lib, const std::vector<std::string> &Missing) {
  std::string Names;
  bool Cupti = false;
  for (const std::string &M : Missing) {
    Names += (Names.empty() ? "" : ", ") + M;
    Cupti = Cupti || M.rfind("libcupti", 0) == 0;
  }
  std::string Text = "syncwatch: error: " + Lib + " cannot be loaded into a program: " + Names +
                     " not found by the dynamic loader, which would refuse to start the program at all; "
                     "the program was not started.\n";
  if (Cupti)
    Text += "syncwatch: CUPTI comes with the CUDA toolkit (<cuda>/extras/CUPTI/lib64 or <cuda>/lib64) or, "
            "for a pip install, with the nvidia-cuda-cupti package: put its folder on LD_LIBRARY_PATH.\n";
  return Text;
}

} // namespace syncwatch::runtime
