#include "ThreadNames.h"

#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <mutex>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace syncwatch::runtime {
namespace {

// Never destroyed: a thread may end while the process's static objects are being destroyed.
std::mutex &endedLock() {
  static auto *M = new std::mutex;
  return *M;
}
std::map<std::uint64_t, std::string> &ended() {
  static auto *Names = new std::map<std::uint64_t, std::string>;
  return *Names;
}

std::map<std::uint64_t, std::string> liveThreadNames() {
  std::map<std::uint64_t, std::string> Names;
  DIR *Tasks = ::opendir("/proc/self/task");
  if (!Tasks)
    return Names;
  while (const dirent *E = ::readdir(Tasks)) {
    char *End = nullptr;
    unsigned long long Tid = std::strtoull(E->d_name, &End, 10);
    if (End == E->d_name || *End)
      continue;  // "." and ".."
    std::ifstream Comm(std::string("/proc/self/task/") + E->d_name + "/comm");
    std::string Name;
    if (std::getline(Comm, Name) && !Name.empty())
      Names[Tid] = Name;
  }
  ::closedir(Tasks);
  return Names;
}

} // namespace

void rememberEndingThread() {
  char Name[16] = {};  // the kernel's limit, 15 characters and the NUL
  if (::pthread_getname_np(::pthread_self(), Name, sizeof Name) != 0 || !Name[0])
    return;
  auto Tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  std::lock_guard<std::mutex> G(endedLock());
  ended()[Tid] = Name;
}

std::map<std::uint64_t, std::string> threadNames() {
  std::map<std::uint64_t, std::string> Names;
  {
    std::lock_guard<std::mutex> G(endedLock());
    Names = ended();
  }
  for (auto &[Tid, Name] : liveThreadNames())
    Names[Tid] = std::move(Name);
  return Names;
}

} // namespace syncwatch::runtime
