#include "ApplyFixes.h"

#include "ToolFiles.h"

#include "syncwatch/file_input.h"
#include "syncwatch/file_output.h"
#include "syncwatch/json_report_reader.h"
#include "syncwatch/sarif_reader.h"
#include "syncwatch/json_value.h"
#include "syncwatch/json_writer.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <map>
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

// The certain fix-its of a lint report, applied to the files under Tree (the report's paths
// under its source root moved there). A file's edits are made in memory, checked (in range,
// not overlapping), then the file is replaced whole. Sets Applied and Files.
bool applyReportFixes(const std::string &ReportPath, const std::string &Tree, unsigned &Applied, unsigned &Files,
                      std::string &Error) {
  std::string Text, Why;
  if (!readWholeFile(ReportPath, Text, Why)) {
    Error = "cannot read the fix-its' report '" + ReportPath + "': " + unreadableReason(Why);
    return false;
  }
  Report R;
  bool Sarif = Text.find("\"$schema\"") != std::string::npos || Text.find("\"runs\"") != std::string::npos;
  if (!(Sarif ? readSarifReport(Text, R, Why) : readJsonReport(Text, R, Why))) {
    Error = ReportPath + ": not a syncwatch-lint report (SARIF or JSON): " + Why;
    return false;
  }
  std::map<std::string, std::vector<FixIt>> ByFile;
  for (const Finding &F : R.Findings)
    for (const FixIt &X : F.Fixes) {
      std::string File = X.Where.File;
      if (!R.SourceRoot.empty() && isUnder(File, R.SourceRoot))
        File = Tree + File.substr(R.SourceRoot.size());
      else if (!File.empty() && File[0] != '/')
        File = Tree + "/" + File;
      if (!isUnder(File, Tree))
        continue;  // outside the checkout (a system header's path): not this tree's to edit
      FixIt Moved = X;
      Moved.Where.File = File;
      ByFile[File].push_back(Moved);
    }
  Applied = Files = 0;
  for (auto &[File, Fixes] : ByFile) {
    std::string Code, Unread;
    if (!readWholeFile(File, Code, Unread)) {
      Error = ReportPath + " edits '" + File + "', which this commit does not have (a report of another commit?)";
      return false;
    }
    std::vector<std::size_t> LineStart{0};
    for (std::size_t I = 0; I < Code.size(); ++I)
      if (Code[I] == '\n')
        LineStart.push_back(I + 1);
    auto Offset = [&](unsigned Line, unsigned Column, std::size_t &At) {
      if (!Line || !Column || Line > LineStart.size())
        return false;
      At = LineStart[Line - 1] + Column - 1;
      std::size_t End = Line < LineStart.size() ? LineStart[Line] : Code.size() + 1;
      return At < End && At <= Code.size();
    };
    struct Edit {
      std::size_t From, To;
      std::string Text;
      bool operator==(const Edit &O) const { return From == O.From && To == O.To && Text == O.Text; }
    };
    std::vector<Edit> Edits;
    for (const FixIt &X : Fixes) {
      Edit E;
      if (!Offset(X.Where.Line, X.Where.Column, E.From) || !Offset(X.Where.EndLine, X.Where.EndColumn, E.To) || E.To < E.From) {
        Error = ReportPath + ": a fix-it outside '" + File + "' (line " + std::to_string(X.Where.Line) +
                "): a report of another commit?";
        return false;
      }
      E.Text = X.Text;
      Edits.push_back(std::move(E));
    }
    std::sort(Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) { return A.From != B.From ? A.From > B.From : A.To > B.To; });
    Edits.erase(std::unique(Edits.begin(), Edits.end()), Edits.end());  // one header's fix, reported by two units
    for (std::size_t I = 1; I < Edits.size(); ++I)
      if (Edits[I].To > Edits[I - 1].From) {
        Error = ReportPath + ": two fix-its overlap in '" + File + "': none of that file's is applied";
        return false;
      }
    for (const Edit &E : Edits)
      Code.replace(E.From, E.To - E.From, E.Text);
    if (!writeFileAtomically(File, Code, Why)) {
      Error = "cannot write '" + File + "': " + Why;
      return false;
    }
    Applied += static_cast<unsigned>(Edits.size());
    ++Files;
  }
  return true;
}

// The compile database: the entries of a build folder's compile_commands.json.
bool readDatabase(std::string Path, JsonValue &Db, std::string &Error) {
  struct stat St;
  if (::stat(Path.c_str(), &St) == 0 && S_ISDIR(St.st_mode))
    Path += "/compile_commands.json";
  std::string Text, Why;
  if (!readWholeFile(Path, Text, Why)) {
    Error = "no compile database at '" + Path + "' (-p names the build folder or its compile_commands.json): " + unreadableReason(Why);
    return false;
  }
  if (!JsonValue::parse(Text, Db, Why) || Db.kind() != JsonValue::Kind::Array) {
    Error = Path + ": not a compile database (" + (Why.empty() ? "not a JSON array" : Why) + ")";
    return false;
  }
  return true;
}

// The lint's --fix over the database's files in the worktree: the database is moved there
// first (OutDir/fix-db), so that the lint parses the worktree's files with the same flags.
bool lintFixes(const ApplyFixesOptions &O, const JsonValue &Db, const FixedTree &Out, const std::string &OutDir,
               std::string &Applied, std::string &Error) {
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
    struct stat St;  // a generated file of the build folder is not in the worktree
    if (isUnder(File, Out.Worktree) && ::stat(File.c_str(), &St) == 0)
      Files.push_back(File);
  }
  J.endArray();
  std::string FixDb = OutDir + "/fix-db", Why;
  if ((::mkdir(FixDb.c_str(), 0755) != 0 && errno != EEXIST) ||
      !writeFileAtomically(FixDb + "/compile_commands.json", Moved.str() + "\n", Why)) {
    Error = "cannot write '" + FixDb + "/compile_commands.json': " + Why;
    return false;
  }
  if (Files.empty()) {
    Error = "the compile database has no file inside " + Out.Checkout + ": nothing to fix";
    return false;
  }
  std::string LintLog = OutDir + "/lint.log";
  std::vector<std::string> Lint = {O.Lint, "-p", FixDb, "--fix", "--format=json", "--output=" + OutDir + "/lint.json"};
  if (!O.Checks.empty())
    Lint.push_back("--checks=" + O.Checks);
  Lint.insert(Lint.end(), Files.begin(), Files.end());
  int Code = runIn(Lint, Out.Worktree, LintLog, nullptr);
  if (Code != 0 && Code != 1) {
    Error = "syncwatch-lint --fix failed in the worktree (exit " + std::to_string(Code) + "): " + LintLog + tail(LintLog, 5);
    return false;
  }
  std::ifstream Log(LintLog);
  for (std::string L; std::getline(Log, L);)
    if (L.rfind("syncwatch-lint: applied", 0) == 0)
      Applied = L.substr(std::strlen("syncwatch-lint: "));
  return true;
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
  std::string GitLog = OutDir + "/git.log", BuildLog = OutDir + "/build.log", Why;
  struct stat St;
  if (::stat(Out.Worktree.c_str(), &St) == 0) {
    Error = "'" + Out.Worktree + "' exists (an earlier --apply-fixes): remove it with 'git worktree remove --force " +
            Out.Worktree + "', or give another --out";
    return false;
  }
  JsonValue Db;  // read before anything is made (a report's fix-its need none)
  if (O.FixesReport.empty() && !readDatabase(O.Database, Db, Error))
    return false;

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

  // 2. The fix-its: a report's, or the lint's.
  std::string Applied;
  if (!O.FixesReport.empty()) {
    unsigned Edits = 0, Files = 0;
    if (!applyReportFixes(O.FixesReport, Out.Worktree, Edits, Files, Error))
      return false;
    if (Edits)
      Applied = "applied " + std::to_string(Edits) + " edit(s) in " + std::to_string(Files) + " file(s) of " + O.FixesReport;
  } else if (!lintFixes(O, Db, Out, OutDir, Applied, Error)) {
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
