#include "ApplyFixes.h"

#include "syncwatch/file_output.h"
#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace syncwatch::runtime {

namespace {

// Runs Argv in Dir; its stdout (and, with Log, stderr too) goes to Log, or into Captured.
// Returns the exit code (128 + N for signal N), -1 when it could not start.
int runIn(const std::vector<std::string> &Argv, const std::string &Dir, const std::string &Log, std::string *Captured,
          const std::string &Stdin = "") {
  int Pipe[2] = {-1, -1}, In[2] = {-1, -1};
  if (Captured && ::pipe2(Pipe, O_CLOEXEC) != 0)
    return -1;
  if (!Stdin.empty() && ::pipe2(In, O_CLOEXEC) != 0)
    return -1;
  pid_t Pid = ::fork();
  if (Pid < 0)
    return -1;
  if (Pid == 0) {
    if (::chdir(Dir.c_str()) != 0)
      ::_exit(126);
    if (!Log.empty()) {
      int Fd = ::open(Log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (Fd >= 0) {
        ::dup2(Fd, 2);
        if (!Captured)
          ::dup2(Fd, 1);
      }
    }
    if (Captured)
      ::dup2(Pipe[1], 1);
    if (!Stdin.empty())
      ::dup2(In[0], 0);
    std::vector<char *> A;
    for (const std::string &S : Argv)
      A.push_back(const_cast<char *>(S.c_str()));
    A.push_back(nullptr);
    ::execvp(A[0], A.data());
    ::_exit(127);
  }
  if (!Stdin.empty()) {
    ::close(In[0]);
    int Errno = 0;
    writeAllToFd(In[1], Stdin, Errno);
    ::close(In[1]);
  }
  if (Captured) {
    ::close(Pipe[1]);
    char Buf[65536];
    ssize_t N;
    while ((N = ::read(Pipe[0], Buf, sizeof Buf)) > 0 || (N < 0 && errno == EINTR))
      if (N > 0)
        Captured->append(Buf, static_cast<std::size_t>(N));
    ::close(Pipe[0]);
  }
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

std::string trimmed(std::string S) {
  while (!S.empty() && (S.back() == '\n' || S.back() == '\r' || S.back() == ' '))
    S.pop_back();
  return S;
}

// The last lines of a log, for the one-line error's reader.
std::string tail(const std::string &Log, unsigned Lines) {
  std::ifstream In(Log);
  std::vector<std::string> All;
  for (std::string L; std::getline(In, L);)
    All.push_back(L);
  std::string Out;
  for (std::size_t I = All.size() > Lines ? All.size() - Lines : 0; I < All.size(); ++I)
    Out += "\n  | " + All[I];
  return Out;
}

bool isUnder(const std::string &Path, const std::string &Dir) {
  return Path == Dir || (Path.size() > Dir.size() && Path.compare(0, Dir.size(), Dir) == 0 && Path[Dir.size()] == '/');
}

// Every occurrence of From + "/" (and a value that is From itself) as To's.
std::string moved(const std::string &S, const std::string &From, const std::string &To) {
  if (S == From)
    return To;
  std::string Out;
  std::size_t At = 0;
  for (std::size_t Hit; (Hit = S.find(From + "/", At)) != std::string::npos; At = Hit + From.size()) {
    Out += S.substr(At, Hit - At) + To;
  }
  return Out + S.substr(At);
}

} // namespace

bool prepareFixedTree(const ApplyFixesOptions &O, FixedTree &Out, std::string &Error) {
  // The checkout: the git top level of the working directory.
  std::string Top;
  if (runIn({"git", "rev-parse", "--show-toplevel"}, ".", "", &Top) != 0 || trimmed(Top).empty()) {
    Error = "--apply-fixes needs a git checkout (the fix-its go into a scratch worktree of it): "
            "'git rev-parse --show-toplevel' failed here";
    return false;
  }
  Out.Checkout = trimmed(Top);
  char Real[PATH_MAX];
  if (::mkdir(O.OutDir.c_str(), 0755) != 0 && errno != EEXIST) {
    Error = "cannot make '" + O.OutDir + "': " + std::strerror(errno);
    return false;
  }
  if (!::realpath(O.OutDir.c_str(), Real)) {
    Error = "cannot resolve '" + O.OutDir + "': " + std::strerror(errno);
    return false;
  }
  std::string OutDir = Real;
  Out.Worktree = OutDir + "/worktree";
  std::string GitLog = OutDir + "/git.log", LintLog = OutDir + "/lint.log", BuildLog = OutDir + "/build.log";
  struct stat St;
  if (::stat(Out.Worktree.c_str(), &St) == 0) {
    Error = "'" + Out.Worktree + "' exists (an earlier --apply-fixes): remove it with 'git worktree remove --force " +
            Out.Worktree + "', or give another --out";
    return false;
  }

  // The compile database, read before anything is made.
  std::string DbPath = O.Database;
  if (::stat(DbPath.c_str(), &St) == 0 && S_ISDIR(St.st_mode))
    DbPath += "/compile_commands.json";
  std::ifstream DbIn(DbPath);
  if (!DbIn) {
    Error = "no compile database at '" + DbPath + "' (-p names the build folder or its compile_commands.json)";
    return false;
  }
  std::stringstream DbText;
  DbText << DbIn.rdbuf();
  JsonValue Db;
  std::string Why;
  if (!JsonValue::parse(DbText.str(), Db, Why) || Db.kind() != JsonValue::Kind::Array) {
    Error = DbPath + ": not a compile database (" + (Why.empty() ? "not a JSON array" : Why) + ")";
    return false;
  }

  // 1. The worktree, with the user's uncommitted changes to tracked files.
  if (runIn({"git", "-C", Out.Checkout, "worktree", "add", "--detach", Out.Worktree, "HEAD"}, ".", GitLog, nullptr) != 0) {
    Error = "'git worktree add' failed: " + GitLog + tail(GitLog, 5);
    return false;
  }
  std::string Uncommitted;
  if (runIn({"git", "-C", Out.Checkout, "diff", "--binary", "HEAD"}, ".", GitLog, &Uncommitted) != 0) {
    Error = "'git diff HEAD' failed: " + GitLog + tail(GitLog, 5);
    return false;
  }
  if (!Uncommitted.empty() &&
      runIn({"git", "-C", Out.Worktree, "apply", "--whitespace=nowarn", "-"}, ".", GitLog, nullptr, Uncommitted) != 0) {
    Error = "your uncommitted changes did not apply in the worktree: " + GitLog + tail(GitLog, 5);
    return false;
  }
  runIn({"git", "-C", Out.Worktree, "add", "-A"}, ".", GitLog, nullptr);  // its own index: git diff = the fix-its

  // 2. The database in the worktree, and the fix-its.
  std::ostringstream Moved;
  JsonWriter J(Moved);
  J.beginArray();
  std::vector<std::string> Files;
  for (const JsonValue &E : Db.array()) {
    J.beginObject();
    for (const auto &[K, V] : E.members()) {
      if (V.kind() == JsonValue::Kind::String) {
        J.field(K, moved(V.string(), Out.Checkout, Out.Worktree));
      } else if (V.kind() == JsonValue::Kind::Array) {
        J.key(K).beginArray();
        for (const JsonValue &A : V.array())
          J.value(A.kind() == JsonValue::Kind::String ? moved(A.string(), Out.Checkout, Out.Worktree) : std::string());
        J.endArray();
      }
    }
    J.endObject();
    std::string File = E["file"].kind() == JsonValue::Kind::String ? E["file"].string() : "";
    std::string Dir = E["directory"].kind() == JsonValue::Kind::String ? E["directory"].string() : "";
    if (!File.empty() && File[0] != '/')
      File = Dir + "/" + File;
    File = moved(File, Out.Checkout, Out.Worktree);
    struct stat FileSt;  // a generated file of the build folder is not in the worktree
    if (isUnder(File, Out.Worktree) && ::stat(File.c_str(), &FileSt) == 0)
      Files.push_back(File);
  }
  J.endArray();
  std::string FixDb = OutDir + "/fix-db";
  if ((::mkdir(FixDb.c_str(), 0755) != 0 && errno != EEXIST) ||
      !writeFileAtomically(FixDb + "/compile_commands.json", Moved.str() + "\n", Why)) {
    Error = "cannot write '" + FixDb + "/compile_commands.json': " + Why;
    return false;
  }
  if (Files.empty()) {
    Error = DbPath + " has no file inside " + Out.Checkout + ": nothing to fix";
    return false;
  }
  std::vector<std::string> Lint = {O.Lint, "-p", FixDb, "--fix", "--format=json", "--output=" + OutDir + "/lint.json"};
  if (!O.Checks.empty())
    Lint.push_back("--checks=" + O.Checks);
  Lint.insert(Lint.end(), Files.begin(), Files.end());
  int LintCode = runIn(Lint, Out.Worktree, LintLog, nullptr);
  if (LintCode != 0 && LintCode != 1) {
    Error = "syncwatch-lint --fix failed in the worktree (exit " + std::to_string(LintCode) + "): " + LintLog + tail(LintLog, 5);
    return false;
  }
  std::string Diff, Names;
  runIn({"git", "-C", Out.Worktree, "diff"}, ".", GitLog, &Diff);
  runIn({"git", "-C", Out.Worktree, "diff", "--name-only"}, ".", GitLog, &Names);
  if (!writeFileAtomically(OutDir + "/fixes.diff", Diff, Why)) {
    Error = "cannot write '" + OutDir + "/fixes.diff': " + Why;
    return false;
  }
  std::istringstream NameLines(Names);
  for (std::string L; std::getline(NameLines, L);)
    Out.FilesChanged += !L.empty();
  std::string Applied;
  {
    std::ifstream In(LintLog);
    for (std::string L; std::getline(In, L);)
      if (L.rfind("syncwatch-lint: applied", 0) == 0)
        Applied = L.substr(std::strlen("syncwatch-lint: "));
  }
  Out.Summary = "syncwatch verify: the fix-its in a scratch worktree, " + Out.Worktree + " (your tree is untouched): " +
                (Applied.empty() ? "none to apply" : Applied) + "; the diff is " + OutDir + "/fixes.diff\n";
  if (!Out.FilesChanged)
    return true;

  // 3. The build.
  if (runIn({"/bin/sh", "-c", O.BuildCmd}, Out.Worktree, BuildLog, nullptr) != 0) {
    Error = "the build failed in the worktree (" + O.BuildCmd + "): " + BuildLog + tail(BuildLog, 8);
    return false;
  }
  Out.Summary += "syncwatch verify: built in the worktree (" + O.BuildCmd + "): " + BuildLog + "\n";
  return true;
}

} // namespace syncwatch::runtime
