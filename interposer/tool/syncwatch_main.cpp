// syncwatch: the runtime half's command line.
//   syncwatch run [--out DIR] [--threshold-ms N] [--record] -- cmd args...
//       runs cmd with libsyncwatch.so preloaded; returns cmd's exit code; prints where the
//       report went
//   syncwatch calibrate [--out profile.json] [--spin-ms N]
//       measures which calls block on this GPU and driver (syncwatch-calibrate); writes a profile
//   syncwatch replay [--format text|json|sarif] [--threshold-ms N] [--window N [--window-max M] [--lag-ms L]]
//                    [--trace OUT.json] FILE.swrec
//       runs the engine on a recorded event stream, offline (no GPU needed); with --window,
//       feeds it the way libsyncwatch.so does - through a bounded window, GPU records
//       arriving L ms after their work ended (CUPTI's buffering) - to test the windowing
#include "CommandLine.h"
#include "PreloadCheck.h"

#include "../engine/CalibrationEvidence.h"
#include "../engine/Engine.h"
#include "../engine/EventWindow.h"
#include "../engine/TraceWriter.h"
#include "../engine/Utilization.h"
#include "../join/ApplyFixes.h"
#include "../join/Confirm.h"
#include "../join/Gate.h"
#include "../join/Merge.h"
#include "../join/PathMaps.h"
#include "../join/ToolFiles.h"
#include "../join/Verify.h"

#include "syncwatch/file_input.h"
#include "syncwatch/file_output.h"
#include "syncwatch/fingerprint.h"
#include "syncwatch/report.h"
#include "syncwatch/source_hash.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <iostream>
#include <string>
#include <vector>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {

const char *const RunUsage =
    "usage: syncwatch run [--out DIR] [--threshold-ms N] [--record] [--profile FILE] -- cmd args...\n"
    "  runs cmd with libsyncwatch.so preloaded; keeps cmd's exit code; says where the reports went\n"
    "  (no --out and no SYNCWATCH_OUT: the findings are on stderr only, no file is written)\n";
const char *const ReplayUsage =
    "usage: syncwatch replay [--format text|json|sarif] [--threshold-ms N] [--window N [--window-max M] [--lag-ms L]]\n"
    "                        [--trace OUT.json] [--profile FILE] [--source-root DIR] [--path-map OLD=NEW]...\n"
    "                        [--steps marked|loop] FILE.swrec\n"
    "  runs the engine on a recorded event stream, offline (no GPU needed); --steps loop: capture\n"
    "  readiness of the loop the calls repeat, for a recording without step marks\n";
const char *const MergeUsage =
    "usage: syncwatch merge [--format text|json|sarif|markdown] [--output FILE] [--trace OUT.json] [--source-root DIR]\n"
    "                       [--link-base URL] [--path-map OLD=NEW]... REPORT.json|RECORDING.swrec...\n"
    "  one report for the processes of one job (ranks): findings per site over all ranks, the straggler\n";
const char *const ConfirmUsage =
    "usage: syncwatch confirm --static LINT.sarif --runtime REPORT... [--format text|json|sarif|markdown] [--output FILE]\n"
    "                         [--fail-on confirmed|warning|runtime] [--min-cost-ms N (1)] [--path-map OLD=NEW]...\n"
    "                         [--source-root DIR] [--link-base URL]\n"
    "  each static warning confirmed, not observed or not exercised by what the runtime measured at its line\n";
const char *const VerifyUsage =
    "usage: syncwatch verify --before DIR --after DIR [--format text|json|markdown|sarif] [--output FILE]\n"
    "                        [--min-effect-ms N (0.05)] [--path-map OLD=NEW]...\n"
    "usage: syncwatch verify [--runs N (5)] [--out DIR] [--threshold-ms N] --before-cmd 'OLD CMD' --after-cmd 'NEW CMD'\n"
    "                        [--format ...] [--output FILE] [--min-effect-ms N] [--path-map OLD=NEW]...\n"
    "usage: syncwatch verify [--runs N (5)] [--out DIR] [--before-env K=V]... [--after-env K=V]... -- cmd args...\n"
    "usage: syncwatch verify --apply-fixes (-p BUILD | --fixes LINT.sarif) --build-cmd 'CMD' (--run-cmd 'CMD' | --no-run)\n"
    "                        [--runs N] [--out DIR] [--lint SYNCWATCH-LINT] [--checks GLOBS]\n"
    "  (the lint's fix-its applied in a scratch git worktree OUT/worktree, built there, then before and after run)\n"
    "  did a fix save time: each call site's blocked time, the wall time and the GPU idle time before and after,\n"
    "  with 95% intervals from the repeats (runs interleaved); exit 1 when the after is slower beyond the noise\n";
const char *const GateUsage =
    "usage: syncwatch gate REPORT|RECORDING... [--budget-ms N] [--budget-ms-per-step N] [--allowlist FILE]\n"
    "                      [--baseline FILE]...\n"
    "                      [--write-baseline FILE] [--grow-ms N (1)] [--grow-pct P (10)] [--min-cost-ms N (1)]\n"
    "                      [--fail-on note|warning|error (warning)] [--format text|json|markdown|sarif] [--output FILE]\n"
    "                      [--path-map OLD=NEW]...\n"
    "  a CI gate on one run's measured cost: a budget of blocked time (a run's, or any one step's where the\n"
    "  program marks steps: SYNCWATCH_STEP), an allowlist of accepted sites with reasons (by file, function\n"
    "  or thread), and only new or grown costs failing against a baseline run\n";
const char *const CalibrateUsage =
    "usage: syncwatch calibrate [--out profile.json] [--spin-ms N]\n"
    "  measures which CUDA calls block on this GPU and driver; prints the table, writes the profile\n";

std::string usageText() {
  return std::string("syncwatch ") + SYNCWATCH_VERSION + ": the runtime half of syncwatch (docs/runtime.md)\n" + RunUsage +
         ReplayUsage + MergeUsage + ConfirmUsage + VerifyUsage + GateUsage + CalibrateUsage + "usage: syncwatch --version | --help\n";
}

// Wrong arguments: one line naming what was wrong, the way to get help, exit 2.
int badArguments(const std::string &Command, const std::string &What) {
  std::cerr << "syncwatch" << (Command.empty() ? "" : " " + Command) << ": " << What << " (see 'syncwatch "
            << (Command.empty() ? "" : Command + " ") << "--help')\n";
  return 2;
}

// A number option: the whole value must be a non-negative number.
bool numberOption(const ParsedArgs &P, const std::string &Name, double &Out, std::string &Error) {
  if (!P.has(Name))
    return true;
  std::string V = P.get(Name);
  char *End = nullptr;
  double D = std::strtod(V.c_str(), &End);
  if (V.empty() || *End != '\0' || !(D >= 0)) {
    Error = "--" + Name + " '" + V + "' is not a non-negative number";
    return false;
  }
  // Milliseconds and event counts become 64-bit integers: a larger value would wrap.
  if (D > 1e9) {
    Error = "--" + Name + " '" + V + "' is too large (at most 1e9)";
    return false;
  }
  Out = D;
  return true;
}

std::string selfDir() {
  char Buf[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Buf, sizeof Buf - 1);
  if (N <= 0)
    return ".";
  Buf[N] = 0;
  std::string P(Buf);
  return P.substr(0, P.rfind('/'));
}

// A file of syncwatch's own: next to this tool in the build tree, else where the install
// tree puts it relative to bin/ (SYNCWATCH_BIN_TO_LIB / _LIBEXEC, from CMake's
// GNUInstallDirs), so an installed or moved prefix, a .deb or the wheel find their parts
// without any build path. Returns the first candidate when none exists (for the message).
std::string ownFile(const char *Name, const char *FromBin) {
  std::string Dir = selfDir();
  std::string Sibling = Dir + "/" + Name;
  if (access(Sibling.c_str(), F_OK) == 0)
    return Sibling;
  std::string Installed = Dir + "/" + FromBin + "/" + Name;
  char Real[PATH_MAX];
  if (realpath(Installed.c_str(), Real))
    return Real;
  return Installed;
}

// Feeds a recording in the order libsyncwatch.so would have seen it: a call when it
// returned, a GPU record LagNs after its work ended.
void replayThroughWindow(const EventLog &Log, Engine &E, std::size_t Capacity, std::size_t Largest,
                         std::uint64_t LagNs, const EngineConfig &Cfg) {
  EventWindow W(E, Capacity, Cfg, Largest);
  if (Log.KernelsTracedFrom)
    W.setKernelsTracedFrom(*Log.KernelsTracedFrom);
  for (const StreamInfo &S : Log.Streams)
    W.addStream(S);
  struct Arrival {
    std::uint64_t At;
    const ApiCall *Call;
    const GpuWork *Work;
  };
  std::vector<Arrival> Order;
  for (const ApiCall &C : Log.Calls)
    Order.push_back({C.Exit, &C, nullptr});
  for (const GpuWork &G : Log.Work)
    Order.push_back({G.End + LagNs, nullptr, &G});
  std::stable_sort(Order.begin(), Order.end(), [](const Arrival &A, const Arrival &B) { return A.At < B.At; });
  for (const Arrival &A : Order) {
    if (A.Call)
      W.addCall(*A.Call);
    else
      W.addWork(*A.Work);
  }
  EventLog Sites;
  Sites.Sites = Log.Sites;
  Sites.ThreadNames = Log.ThreadNames;
  Sites.Process = Log.Process;  // the pid: which thread is the main one
  W.flush();
  E.consume(Sites);
  if (W.lateRecords())
    std::cerr << "syncwatch replay: " << W.lateRecords() << " GPU record(s) came after their call was judged; the window grew to "
              << W.capacity() << " events\n";
}

// The recording parsed, or exit 2 (said). A FIFO is refused, not waited on for a writer
// forever; a regular file is streamed (a recording may be larger than the memory a copy of
// it would take).
int readRecording(const std::string &File, ParseResult &P) {
  if (std::string Why = notRegularFileError(File); !Why.empty()) {
    std::cerr << "syncwatch: error: " << File << ": " << Why << "\n";
    return 2;
  }
  std::ifstream In(File, std::ios::binary);
  if (!In) {
    std::cerr << "syncwatch: error: " << File << ": cannot be read\n";
    return 2;
  }
  P = readEventLog(In);
  if (!P.Error.empty()) {
    std::cerr << "syncwatch: error: " << File << ": " << P.Error << "\n";
    return 2;
  }
  return 0;
}

// What the engine found in the recording, as a report: findings, coverage, the sources,
// the utilization and step figures (Figures and LostNs kept for the text), the profile's.
Report replayReport(Engine &E, const EventLog &Log, Utilization &Use, const PathMaps &Maps,
                    const std::string &Format, const std::string &SourceRoot, const CalibrationProfile &Profile,
                    UtilizationFigures &Figures, std::uint64_t &LostNs) {
  Report R;
  R.ToolName = "syncwatch replay";
  R.ToolVersion = SYNCWATCH_VERSION;
  // SARIF URIs relative to --source-root (the checkout the recording was made in may be
  // elsewhere), by default the git top level of the working directory.
  R.SourceRoot = sourceRootOption(SourceRoot);
  R.Findings = E.findings();
  R.Process = Log.Process.pairs();  // which rank of which job recorded it
  R.Coverage = E.coverage();
  applyPathMaps(R, Maps, Format != "text");  // every format: the paths as they are in this checkout
  R.Artifacts = sourceArtifacts(R);  // the sources as they are here, for confirm to compare
  LostNs = E.hostTimeLostNs();
  Figures = Use.figures();
  R.Figures = E.reportFigures(Figures);  // (coverage's too, as the library's report has them)
  setFingerprints(R);
  if (!Profile.Path.empty()) {
    annotateWithCalibration(R.Findings, Profile);
    for (auto &F : calibrationFigures(Profile))
      R.Figures.push_back(F);
  }
  return R;
}

// The recording's trace (--trace), the engine's findings marked on it; exit 2 (said) when it
// cannot be written.
int writeReplayTrace(TraceBuilder &Trace, Engine &E, const std::string &TraceFile) {
  std::ostringstream T;
  Trace.write(T, [&](RuleId Rule, std::uint32_t Site) { return E.reported(Rule, Site); });
  std::string Why;
  if (!writeFileAtomically(TraceFile, T.str(), Why)) {
    std::cerr << "syncwatch: error: cannot write the trace to '" << TraceFile << "': " << Why
              << " (any old file is untouched)\n";
    return 2;
  }
  return 0;
}

// Parses the options, replays the recording through the engine (whole, or through a
// sliding window as the library does), then writes the trace and the report.
int replay(const std::vector<std::string> &Args) {
  ParsedArgs P0 = parseArgs(Args, {{"format", true}, {"threshold-ms", true}, {"window", true}, {"trace", true},
                                   {"lag-ms", true}, {"window-max", true}, {"profile", true}, {"source-root", true},
                                   {"path-map", true}, {"steps", true}});
  if (P0.Help) {
    std::cout << ReplayUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("replay", P0.Error);
  std::string Format = P0.get("format", "text");
  if (Format != "text" && Format != "json" && Format != "sarif")
    return badArguments("replay", "unknown --format '" + Format + "' (expected text, json or sarif)");
  if (P0.Positional.size() != 1)
    return badArguments("replay", P0.Positional.empty() ? "no recording given" : "one recording at a time");
  std::string File = P0.Positional.front();
  EngineConfig Cfg;
  double ThresholdMs = Cfg.HostWaitThresholdNs / 1e6, WindowEvents = 0, WindowMax = 0, LagMs = 0;
  std::string Error;
  if (!numberOption(P0, "threshold-ms", ThresholdMs, Error) || !numberOption(P0, "window", WindowEvents, Error) ||
      !numberOption(P0, "window-max", WindowMax, Error) || !numberOption(P0, "lag-ms", LagMs, Error))
    return badArguments("replay", Error);
  PathMaps Maps;
  if (!pathMapOption(P0, Maps, Error))
    return badArguments("replay", Error);
  Cfg.HostWaitThresholdNs = static_cast<std::uint64_t>(ThresholdMs * 1e6);
  std::size_t Window = static_cast<std::size_t>(WindowEvents);
  std::uint64_t LagNs = static_cast<std::uint64_t>(LagMs * 1e6);
  std::string TraceFile = P0.get("trace"), ProfileFile = P0.get("profile");
  if (std::string Same = outputThatIsAnInput(TraceFile, {File, ProfileFile}); !Same.empty())
    return badArguments("replay", "the output '" + TraceFile + "' is the input '" + Same + "': refusing to overwrite it");
  ParseResult P;
  if (int Rc = readRecording(File, P))
    return Rc;
  CalibrationProfile Profile;
  if (!ProfileFile.empty()) {
    std::string Error;
    if (!readCalibrationProfile(ProfileFile, Profile, Error)) {
      std::cerr << "syncwatch: error: --profile: " << Error << "\n";
      return 2;
    }
  }
  std::string Steps = P0.get("steps", "marked");
  if (Steps != "marked" && Steps != "loop")
    return badArguments("replay", "unknown --steps '" + Steps + "' (expected marked or loop)");
  Engine E(Cfg);
  if (Steps == "loop")
    E.detectLoops();
  TraceBuilder Trace(TraceOptions{SIZE_MAX, 1, File});
  if (!TraceFile.empty()) {
    for (const StreamInfo &S : P.Log.Streams)
      Trace.addStream(S);
    for (const ApiCall &C : P.Log.Calls)
      Trace.addCall(C);
    for (const GpuWork &W : P.Log.Work)
      Trace.addWork(W);
    E.onOccurrence([&](const Occurrence &O) { Trace.addOccurrence(O); });
  }
  Utilization Use;
  for (const GpuWork &W : P.Log.Work)
    Use.add(W);
  if (Window)
    replayThroughWindow(P.Log, E, Window, static_cast<std::size_t>(WindowMax), LagNs, Cfg);
  else
    E.consume(P.Log);
  UtilizationFigures Figures;
  std::uint64_t LostNs = 0;
  Report R = replayReport(E, P.Log, Use, Maps, Format, P0.get("source-root"), Profile, Figures, LostNs);
  if (!TraceFile.empty())
    if (int Rc = writeReplayTrace(Trace, E, TraceFile))
      return Rc;
  std::ostringstream Out;
  if (Format == "json")
    writeJson(Out, R);
  else if (Format == "sarif")
    writeSarif(Out, R);
  else {
    Out << "syncwatch: " << findingsHeadline(R.Findings) << " ("
        << E.callsSeen() << " CUDA calls recorded)\n";
    writeText(Out, R.Findings, diskLineReader(), TextOptions{false, false});
    Out << utilizationText(Figures, E.streams(), LostNs, E.kernelsTracedFrom());
    Out << stepsText(R.Figures);
    Out << capturesText(R.Figures);
    Out << readinessText(R.Figures);
    if (!Profile.Path.empty())
      Out << "calibration profile: " << Profile.Path << " (" << Profile.Device << ")\n";
  }
  std::string Why;
  if (!writeStdout(Out.str(), Why)) {
    std::cerr << "syncwatch replay: error: " << Why << "\n";
    return 2;
  }
  return R.Findings.empty() ? 0 : 1;
}

// libsyncwatch.so beside this tool, and loadable (its CUPTI found): else said, exit 2.
int checkPreloadable(const std::string &Lib) {
  if (access(Lib.c_str(), R_OK) != 0) {
    std::cerr << "syncwatch: error: " << Lib << " not found (build with -DSYNCWATCH_BUILD_INTERPOSER=ON)\n";
    return 2;
  }
  if (std::vector<std::string> Missing = missingDependencies(Lib); !Missing.empty()) {
    std::cerr << cannotPreloadMessage(Lib, Missing);
    return 2;
  }
  return 0;
}

// Reports go where the library can write them: Out created and made absolute. Returns why
// they cannot go there ("": they can), said before the run.
std::string prepareOutDir(std::string &Out) {
  std::string Unwritable;
  mkdir(Out.c_str(), 0755);
  char AbsOut[PATH_MAX];
  if (realpath(Out.c_str(), AbsOut))
    Out = AbsOut;
  struct stat St;
  if (stat(Out.c_str(), &St) != 0 || !S_ISDIR(St.st_mode))
    Unwritable = "it is not a directory that can be created";
  else if (access(Out.c_str(), W_OK) != 0)
    Unwritable = "it is not writable";
  if (!Unwritable.empty())
    std::cerr << "syncwatch: warning: cannot write reports to '" << Out << "' (" << Unwritable
              << "); findings will be on stderr only\n";
  return Unwritable;
}

// The environment the library reads in every process of the run. Exit 2 (said) for a
// profile that cannot be read.
int setRunEnvironment(const std::string &Lib, const std::string &Out, bool Record, const std::string &Threshold,
                      const std::string &Profile) {
  const char *Old = std::getenv("LD_PRELOAD");
  std::string Preload = Lib + (Old && *Old ? std::string(":") + Old : "");
  setenv("LD_PRELOAD", Preload.c_str(), 1);
  // The driver loads and starts it at cuInit in a process that had no CUDA when it started
  // and loads it later (a plugin dlopen'ed by a C++ program); another tool's injection
  // library is left in place.
  setenv("CUDA_INJECTION64_PATH", Lib.c_str(), 0);
  if (!Out.empty())
    setenv("SYNCWATCH_OUT", Out.c_str(), 1);
  // Every process of this run (torchrun's ranks, a launcher's children) carries one job id,
  // so that their reports are merged at the end and never mixed with another run's.
  if (!std::getenv("SYNCWATCH_JOB")) {
    std::string Job = std::to_string(getpid()) + "-" + std::to_string(std::time(nullptr));
    setenv("SYNCWATCH_JOB", Job.c_str(), 1);
  }
  if (Record)
    setenv("SYNCWATCH_RECORD", "1", 1);
  if (!Threshold.empty())
    setenv("SYNCWATCH_THRESHOLD_MS", Threshold.c_str(), 1);
  if (!Profile.empty()) {
    // Read here too, so a bad file stops the run before the program starts.
    CalibrationProfile P;
    std::string Error;
    if (!readCalibrationProfile(Profile, P, Error)) {
      std::cerr << "syncwatch: error: --profile: " << Error << "\n";
      return 2;
    }
    char Abs[PATH_MAX];
    setenv("SYNCWATCH_PROFILE", realpath(Profile.c_str(), Abs) ? Abs : Profile.c_str(), 1);
  }
  return 0;
}

// Runs the command to its end; Status is its wait status. Exit 2 (said) when it cannot start.
// The job runs in a process group of its own, so that a SIGINT, SIGTERM or SIGHUP sent to
// syncwatch (a batch system's, a CI runner's, `kill`) reaches every process of the job, not
// only syncwatch, which would leave the job running orphaned. On a terminal the job's group
// gets the terminal (as a shell does), so Ctrl-C and reading stdin work as without syncwatch.
int runJob(std::vector<char *> &Cmd, int &Status) {
  bool OwnsTerminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
  sigset_t Forwarded, Before;
  sigemptyset(&Forwarded);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD})  // SIGCHLD: the job ended, stop waiting
    sigaddset(&Forwarded, Sig);
  sigprocmask(SIG_BLOCK, &Forwarded, &Before);  // taken with sigtimedwait below, not by a handler
  pid_t Pid = fork();
  if (Pid == 0) {
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, &Before, nullptr);
    execvp(Cmd[0], Cmd.data());
    std::cerr << "syncwatch: error: cannot run '" << Cmd[0] << "': " << std::strerror(errno) << "\n";
    _exit(127);
  }
  if (Pid < 0) {
    sigprocmask(SIG_SETMASK, &Before, nullptr);
    std::cerr << "syncwatch: error: cannot start '" << Cmd[0] << "': " << std::strerror(errno) << "\n";
    return 2;
  }
  setpgid(Pid, Pid);  // (both sides: whichever runs first)
  auto GiveTerminal = [&](pid_t Group) {
    if (!OwnsTerminal)
      return;
    struct sigaction Ignore {}, Old {};
    Ignore.sa_handler = SIG_IGN;
    sigaction(SIGTTOU, &Ignore, &Old);  // a background group may not set it otherwise
    tcsetpgrp(STDIN_FILENO, Group);
    sigaction(SIGTTOU, &Old, nullptr);
  };
  GiveTerminal(Pid);
  Status = 0;
  for (;;) {
    pid_t Done = waitpid(Pid, &Status, WNOHANG);
    if (Done == Pid || (Done < 0 && errno != EINTR))
      break;
    timespec Tick{1, 0};
    int Sig = sigtimedwait(&Forwarded, nullptr, &Tick);
    if (Sig > 0 && Sig != SIGCHLD)
      kill(-Pid, Sig);
  }
  GiveTerminal(getpgrp());
  sigprocmask(SIG_SETMASK, &Before, nullptr);
  return 0;
}

// The reports this run wrote in Out (since Began), by name without ".json", sorted. Every
// process of the run (torchrun's workers, a shell's children) writes its own.
std::vector<std::string> reportsWritten(const std::string &Out, std::time_t Began) {
  std::vector<std::string> Reports;
  if (DIR *D = opendir(Out.c_str())) {
    while (dirent *E = readdir(D)) {
      std::string Name = E->d_name;
      struct stat F;
      if (Name.rfind("syncwatch-", 0) == 0 && Name.size() > 15 && Name.compare(Name.size() - 5, 5, ".json") == 0 &&
          Name.find(".trace.json") == std::string::npos &&
          stat((Out + "/" + Name).c_str(), &F) == 0 && F.st_mtime >= Began)
        Reports.push_back(Name.substr(0, Name.size() - 5));
    }
    closedir(D);
  }
  std::sort(Reports.begin(), Reports.end());
  return Reports;
}

void sayWhereReportsWent(const std::string &Out, const std::string &Unwritable, const std::vector<std::string> &Reports) {
  if (!Unwritable.empty())
    std::cerr << "syncwatch: no report written to '" << Out << "' (" << Unwritable << "); the findings are on stderr above\n";
  else if (Reports.empty())
    std::cerr << "syncwatch: no report written to '" << Out
              << "': no process of the run made a CUDA call that syncwatch saw\n";
  else {
    std::cerr << "syncwatch: " << Reports.size() << " report(s) in " << Out << ":";
    for (const std::string &R : Reports)
      std::cerr << " " << R << ".{json,sarif}";
    std::cerr << "\n";
  }
}

// Several processes: one merged answer (syncwatch merge), beside the per-process reports,
// its text's head on stderr.
void mergeRunReports(const std::string &Out, std::vector<std::string> Reports) {
  Reports.erase(std::remove(Reports.begin(), Reports.end(), "syncwatch-merged"), Reports.end());
  if (Reports.size() < 2)
    return;
  std::vector<std::string> Inputs;
  for (const std::string &R : Reports)
    Inputs.push_back(Out + "/" + R + ".json");
  MergeOptions M;
  M.Quiet = true;
  std::string Base = Out + "/syncwatch-merged";
  M.Format = "json";
  M.Output = Base + ".json";
  int Rc = mergeReports(Inputs, M);
  M.Format = "sarif";
  M.Output = Base + ".sarif";
  if (Rc != 2)
    Rc = mergeReports(Inputs, M);
  M.Format = "text";
  M.Output = Base + ".txt";
  if (Rc != 2)
    Rc = mergeReports(Inputs, M);
  if (Rc != 2) {
    std::ifstream T(M.Output);
    std::string Line;
    for (int N = 0; std::getline(T, Line) && N < 40; ++N)
      std::cerr << Line << "\n";
    std::cerr << "syncwatch: merged report: " << Base << ".{json,sarif,txt}\n";
  }
}

// The command's exit code, or 128 + the signal that ended it (as a shell says it).
int exitCodeOf(int Status) { return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status); }

// Arguments, the library, the output folder and the environment; the command run to its
// end; then where its reports went (merged when several processes wrote one).
int run(const std::vector<std::string> &Args) {
  ParsedArgs P0 = parseArgs(Args, {{"out", true}, {"threshold-ms", true}, {"record", false}, {"profile", true}});
  if (P0.Help) {
    std::cout << RunUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("run", P0.Error);
  if (!P0.Positional.empty())
    return badArguments("run", "'" + P0.Positional.front() + "' before '--': the command to run goes after '--'");
  if (P0.AfterDoubleDash.empty())
    return badArguments("run", "no command to run (syncwatch run [options] -- cmd args...)");
  // Without --out (nor SYNCWATCH_OUT) nothing is written: each process's findings are on
  // stderr, and no directory appears in the working directory unasked.
  const char *OutEnv = std::getenv("SYNCWATCH_OUT");
  std::string Out = P0.get("out", OutEnv ? OutEnv : "");
  bool Record = P0.has("record");
  if (Record && Out.empty())
    return badArguments("run", "--record needs --out DIR (where the recordings are written)");
  std::string Threshold = P0.get("threshold-ms"), Profile = P0.get("profile");
  double ThresholdMs = 0;
  std::string Error;
  if (!numberOption(P0, "threshold-ms", ThresholdMs, Error))
    return badArguments("run", Error);
  std::vector<char *> Cmd;
  for (const std::string &A : P0.AfterDoubleDash)
    Cmd.push_back(const_cast<char *>(A.c_str()));
  Cmd.push_back(nullptr);

  std::string Lib = ownFile("libsyncwatch.so", SYNCWATCH_BIN_TO_LIB);
  if (int Rc = checkPreloadable(Lib))
    return Rc;
  // Say before the run when the reports cannot go to Out, and after it, where they really went.
  std::string Unwritable = Out.empty() ? "" : prepareOutDir(Out);
  if (int Rc = setRunEnvironment(Lib, Out, Record, Threshold, Profile))
    return Rc;
  std::time_t Began = std::time(nullptr);
  int Status = 0;
  if (int Rc = runJob(Cmd, Status))
    return Rc;
  if (Out.empty())  // nothing written: the findings were on stderr
    return exitCodeOf(Status);
  std::vector<std::string> Reports = Unwritable.empty() ? reportsWritten(Out, Began) : std::vector<std::string>();
  sayWhereReportsWent(Out, Unwritable, Reports);
  mergeRunReports(Out, Reports);
  return exitCodeOf(Status);
}

// Runs syncwatch-calibrate (built next to this tool when nvcc was found): measures this
// GPU and driver, prints the table, writes the profile.
int calibrate(const std::vector<std::string> &Args) {
  // Checked here, so every subcommand follows one convention; syncwatch-calibrate reads
  // what passes in its `--opt value` form.
  ParsedArgs P0 = parseArgs(Args, {{"out", true}, {"spin-ms", true}});
  if (P0.Help) {
    std::cout << CalibrateUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("calibrate", P0.Error);
  if (!P0.Positional.empty() || !P0.AfterDoubleDash.empty())
    return badArguments("calibrate", "unexpected argument '" +
                                         (P0.Positional.empty() ? std::string("--") : P0.Positional.front()) + "'");
  double SpinMs = 0;
  std::string Error;
  if (!numberOption(P0, "spin-ms", SpinMs, Error))
    return badArguments("calibrate", Error);
  std::vector<std::string> Forward;
  for (const auto &[Name, Value] : P0.Values) {
    Forward.push_back("--" + Name);
    Forward.push_back(Value);
  }
  std::string Tool = ownFile("syncwatch-calibrate", SYNCWATCH_BIN_TO_LIBEXEC);
  if (access(Tool.c_str(), X_OK) != 0) {
    std::cerr << "syncwatch: error: " << Tool << " not found (it is built when CMake finds nvcc)\n";
    return 2;
  }
  std::vector<char *> Cmd{const_cast<char *>(Tool.c_str())};
  for (const std::string &A : Forward)
    Cmd.push_back(const_cast<char *>(A.c_str()));
  Cmd.push_back(nullptr);
  execv(Tool.c_str(), Cmd.data());
  std::cerr << "syncwatch: error: cannot run '" << Tool << "': " << std::strerror(errno) << "\n";
  return 2;
}

} // namespace

int merge(const std::vector<std::string> &Args) {
  ParsedArgs P0 = parseArgs(Args, {{"format", true}, {"output", true}, {"trace", true}, {"source-root", true},
                                   {"link-base", true}, {"path-map", true}});
  if (P0.Help) {
    std::cout << MergeUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("merge", P0.Error);
  MergeOptions O;
  O.Format = P0.get("format", "text");
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif" && O.Format != "markdown")
    return badArguments("merge", "unknown --format '" + O.Format + "' (expected text, json, sarif or markdown)");
  O.LinkBase = P0.get("link-base");
  O.Output = P0.get("output");
  O.Trace = P0.get("trace");
  O.SourceRoot = P0.get("source-root");
  std::string MapError;
  if (!pathMapOption(P0, O.PathMaps, MapError))
    return badArguments("merge", MapError);
  if (P0.Positional.empty())
    return badArguments("merge", "no reports or recordings given");
  return mergeReports(P0.Positional, O);
}

int confirm(const std::vector<std::string> &Args) {
  // --runtime and --path-map take several values: each occurrence, and the positional
  // arguments after --runtime, are collected.
  std::vector<std::string> Rest;
  ConfirmOptions O;
  for (std::size_t I = 0; I < Args.size(); ++I) {
    std::string A = Args[I];
    auto Value = [&](const char *Name, std::string &Into) {
      std::string Flag = std::string("--") + Name;
      if (A == Flag) {
        if (I + 1 >= Args.size())
          return -1;
        Into = Args[++I];
        return 1;
      }
      if (A.rfind(Flag + "=", 0) == 0) {
        Into = A.substr(Flag.size() + 1);
        return 1;
      }
      return 0;
    };
    std::string V;
    int R;
    if ((R = Value("runtime", V))) {
      if (R < 0)
        return badArguments("confirm", "--runtime needs a report");
      O.Runtime.push_back(V);
      // the reports that follow it, up to the next option
      while (I + 1 < Args.size() && Args[I + 1].rfind("--", 0) != 0)
        O.Runtime.push_back(Args[++I]);
    } else if ((R = Value("path-map", V))) {
      auto Eq = V.find('=');
      if (R < 0 || Eq == std::string::npos || Eq == 0)
        return badArguments("confirm", "--path-map takes OLD=NEW");
      O.PathMaps.push_back({V.substr(0, Eq), V.substr(Eq + 1)});
    } else {
      Rest.push_back(A);
    }
  }
  ParsedArgs P0 = parseArgs(Rest, {{"static", true}, {"format", true}, {"output", true}, {"fail-on", true},
                                   {"min-cost-ms", true}, {"source-root", true}, {"link-base", true}});
  if (P0.Help) {
    std::cout << ConfirmUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("confirm", P0.Error);
  if (!P0.Positional.empty())
    return badArguments("confirm", "unexpected argument '" + P0.Positional.front() + "'");
  O.Static = P0.get("static");
  if (O.Static.empty())
    return badArguments("confirm", "no --static LINT.sarif given");
  O.Format = P0.get("format", "text");
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif" && O.Format != "markdown")
    return badArguments("confirm", "unknown --format '" + O.Format + "' (expected text, json, sarif or markdown)");
  O.LinkBase = P0.get("link-base");
  O.FailOn = P0.get("fail-on", "confirmed");
  if (O.FailOn != "confirmed" && O.FailOn != "warning" && O.FailOn != "runtime")
    return badArguments("confirm", "unknown --fail-on '" + O.FailOn + "' (expected confirmed, warning or runtime)");
  std::string Error;
  if (!numberOption(P0, "min-cost-ms", O.MinCostMs, Error))
    return badArguments("confirm", Error);
  O.Output = P0.get("output");
  O.SourceRoot = P0.get("source-root");
  return confirmFindings(O);
}

int gate(const std::vector<std::string> &Args) {
  ParsedArgs P0 = parseArgs(Args, {{"budget-ms", true}, {"budget-ms-per-step", true}, {"allowlist", true}, {"baseline", true}, {"write-baseline", true},
                                   {"grow-ms", true}, {"grow-pct", true}, {"min-cost-ms", true}, {"fail-on", true},
                                   {"format", true}, {"output", true}, {"path-map", true}});
  if (P0.Help) {
    std::cout << GateUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("gate", P0.Error);
  if (!P0.AfterDoubleDash.empty())
    return badArguments("gate", "gate reads reports; run the program with 'syncwatch run' first");
  GateOptions O;
  O.Inputs = P0.Positional;
  if (O.Inputs.empty())
    return badArguments("gate", "no report: give the run's reports (.json) or recordings (.swrec)");
  O.Baseline = P0.all("baseline");
  O.WriteBaseline = P0.get("write-baseline");
  O.Allowlist = P0.get("allowlist");
  O.Format = P0.get("format", "text");
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif" && O.Format != "markdown")
    return badArguments("gate", "unknown --format '" + O.Format + "' (expected text, json, markdown or sarif)");
  O.FailOn = P0.get("fail-on", "warning");
  if (O.FailOn != "note" && O.FailOn != "warning" && O.FailOn != "error")
    return badArguments("gate", "unknown --fail-on '" + O.FailOn + "' (expected note, warning or error)");
  O.Output = P0.get("output");
  std::string Error;
  if (!numberOption(P0, "budget-ms", O.BudgetMs, Error) || !numberOption(P0, "budget-ms-per-step", O.BudgetMsPerStep, Error) ||
      !numberOption(P0, "grow-ms", O.GrowMs, Error) ||
      !numberOption(P0, "grow-pct", O.GrowPct, Error) || !numberOption(P0, "min-cost-ms", O.MinCostMs, Error))
    return badArguments("gate", Error);
  if (!pathMapOption(P0, O.PathMaps, Error))
    return badArguments("gate", Error);
  if (!O.WriteBaseline.empty() && !O.Baseline.empty())
    return badArguments("gate", "--write-baseline records this run; it does not take --baseline");
  return gateRun(O);
}

namespace {

// Goes on to the next step of verify (an exit code otherwise).
constexpr int kGoOn = -1;

// --before DIR --after DIR: the runs already made, compared.
int verifyFromDirs(const ParsedArgs &P0, VerifyOptions &O, std::string &Error) {
  if (!P0.has("before") || !P0.has("after"))
    return badArguments("verify", "--before DIR and --after DIR go together");
  if (!runsInDirectory(P0.get("before"), O.Before, Error) || !runsInDirectory(P0.get("after"), O.After, Error)) {
    std::cerr << "syncwatch verify: error: " << Error << "\n";
    return 2;
  }
  return verifyRuns(O);
}

// --apply-fixes: the lint's fix-its applied in a worktree and built there; the run command
// then runs in the checkout (before) and the worktree (after). kGoOn, or the exit code.
int prepareFixes(const ParsedArgs &P0, VerifyCommands &C, FixedTree &Fixed, std::string &Error) {
  ApplyFixesOptions A;
  A.Database = P0.get("p");
  A.FixesReport = P0.get("fixes");
  A.BuildCmd = P0.get("build-cmd");
  if (A.Database.empty() == A.FixesReport.empty())
    return badArguments("verify", "--apply-fixes takes the fix-its from -p BUILD (syncwatch-lint --fix over its compile "
                                  "database) or from --fixes LINT.sarif (a lint report of this commit), one of the two");
  if (A.BuildCmd.empty())
    return badArguments("verify", "--apply-fixes needs --build-cmd 'CMD' (run in the worktree)");
  if (!P0.has("no-run") && P0.get("run-cmd").empty())
    return badArguments("verify", "--apply-fixes needs --run-cmd 'CMD' (run in both trees), or --no-run");
  A.OutDir = P0.get("out", "syncwatch-verify");
  A.Checks = P0.get("checks");
  A.Lint = P0.get("lint");
  if (A.Lint.empty()) {  // beside this tool (an install), or in the build tree's analyzer/; else PATH's
    A.Lint = ownFile("syncwatch-lint", "../analyzer");
    if (access(A.Lint.c_str(), X_OK) != 0)
      A.Lint = "syncwatch-lint";
  }
  if (!prepareFixedTree(A, Fixed, Error)) {
    std::cerr << "syncwatch verify: error: " << Error << "\n";
    return 2;
  }
  std::cerr << Fixed.Summary;
  if (!Fixed.FilesChanged) {
    std::cerr << "syncwatch verify: no fix-it changed a file: nothing to verify\n";
    return 0;
  }
  if (P0.has("no-run")) {
    std::cerr << "syncwatch verify: --no-run: stopped before the runs; the fixed build is in " << Fixed.Worktree << "\n";
    return 0;
  }
  C.Before = C.After = {"/bin/sh", "-c", P0.get("run-cmd")};
  C.BeforeDir = Fixed.Checkout;
  C.AfterDir = Fixed.Worktree;
  return kGoOn;
}

// The runs, the threshold, the two environments and the two commands (unless --apply-fixes
// made them). kGoOn, or the exit code.
int commandsFromArgs(const ParsedArgs &P0, bool Fixing, VerifyCommands &C, std::string &Error) {
  double Runs = 5;
  if (!numberOption(P0, "runs", Runs, Error) || Runs < 2 || Runs > 1000 || Runs != static_cast<unsigned>(Runs))
    return badArguments("verify", Error.empty() ? "--runs takes a whole number from 2 to 1000 (an interval needs 2)" : Error);
  C.Runs = static_cast<unsigned>(Runs);
  if (!numberOption(P0, "threshold-ms", C.ThresholdMs, Error))
    return badArguments("verify", Error);
  auto Env = [&](const char *Name, std::vector<std::pair<std::string, std::string>> &Into) {
    for (const std::string &E : P0.all(Name)) {
      auto Eq = E.find('=');
      if (Eq == std::string::npos || Eq == 0)
        return false;
      Into.push_back({E.substr(0, Eq), E.substr(Eq + 1)});
    }
    return true;
  };
  if (!Env("before-env", C.BeforeEnv) || !Env("after-env", C.AfterEnv))
    return badArguments("verify", "--before-env and --after-env take NAME=VALUE");
  if (Fixing) {
    // the run command, in each tree (prepareFixes)
  } else if (P0.has("before-cmd") || P0.has("after-cmd")) {
    if (!P0.has("before-cmd") || !P0.has("after-cmd"))
      return badArguments("verify", "--before-cmd and --after-cmd go together");
    if (!P0.AfterDoubleDash.empty())
      return badArguments("verify", "with --before-cmd/--after-cmd there is no command after '--'");
    C.Before = {"/bin/sh", "-c", P0.get("before-cmd")};
    C.After = {"/bin/sh", "-c", P0.get("after-cmd")};
  } else {
    if (P0.AfterDoubleDash.empty())
      return badArguments("verify", "nothing to compare: --before/--after DIR, --before-cmd/--after-cmd, or "
                                    "--before-env/--after-env with -- cmd args...");
    if (C.BeforeEnv.empty() && C.AfterEnv.empty())
      return badArguments("verify", "one command needs two environments: --before-env K=V and/or --after-env K=V");
    C.Before = C.After = P0.AfterDoubleDash;
  }
  C.OutDir = P0.get("out", "syncwatch-verify");
  char Self[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof Self - 1);
  if (N <= 0)
    return badArguments("verify", "cannot find the syncwatch executable (/proc/self/exe)");
  C.Self.assign(Self, static_cast<std::size_t>(N));
  return kGoOn;
}

} // namespace

// Three ways to get the runs (folders already made, commands to run, or the lint's fix-its
// applied and built), one comparison of them.
int verify(const std::vector<std::string> &Args) {
  ParsedArgs P0 = parseArgs(Args, {{"before", true}, {"after", true}, {"before-cmd", true}, {"after-cmd", true},
                                   {"before-env", true}, {"after-env", true}, {"runs", true}, {"out", true},
                                   {"format", true}, {"output", true}, {"min-effect-ms", true},
                                   {"threshold-ms", true}, {"path-map", true}, {"apply-fixes", false}, {"p", true},
                                   {"build-cmd", true}, {"run-cmd", true}, {"no-run", false}, {"lint", true},
                                   {"checks", true}, {"fixes", true}});
  if (P0.Help) {
    std::cout << VerifyUsage;
    return 0;
  }
  if (!P0.Error.empty())
    return badArguments("verify", P0.Error);
  if (!P0.Positional.empty())
    return badArguments("verify", "unexpected argument '" + P0.Positional.front() + "'");
  VerifyOptions O;
  O.Format = P0.get("format", "text");
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif" && O.Format != "markdown")
    return badArguments("verify", "unknown --format '" + O.Format + "' (expected text, json, markdown or sarif)");
  O.Output = P0.get("output");
  std::string Error;
  if (!numberOption(P0, "min-effect-ms", O.MinEffectMs, Error))
    return badArguments("verify", Error);
  if (!pathMapOption(P0, O.PathMaps, Error))
    return badArguments("verify", Error);
  bool FromDirs = P0.has("before") || P0.has("after");
  bool FromCmds = P0.has("before-cmd") || P0.has("after-cmd") || P0.has("before-env") || P0.has("after-env") ||
                  !P0.AfterDoubleDash.empty();
  bool Fixing = P0.has("apply-fixes");
  if (!Fixing)
    for (const char *Only : {"p", "build-cmd", "run-cmd", "no-run", "lint", "checks", "fixes"})
      if (P0.has(Only))
        return badArguments("verify", std::string(Only[1] ? "--" : "-") + Only + " goes with --apply-fixes");
  if (Fixing && (FromDirs || FromCmds))
    return badArguments("verify", "--apply-fixes makes the after side itself: no --before/--after, commands or '--'");
  if (FromDirs && FromCmds)
    return badArguments("verify", "either --before/--after DIR (reports already made) or commands to run, not both");
  if (FromDirs)
    return verifyFromDirs(P0, O, Error);
  VerifyCommands C;
  FixedTree Fixed;
  if (Fixing)
    if (int Rc = prepareFixes(P0, C, Fixed, Error); Rc != kGoOn)
      return Rc;
  if (int Rc = commandsFromArgs(P0, Fixing, C, Error); Rc != kGoOn)
    return Rc;
  std::cerr << "syncwatch verify: " << C.Runs << " runs each, interleaved, into " << C.OutDir << "/{before,after}\n";
  if (!runInterleaved(C, O, Error)) {
    std::cerr << "syncwatch verify: error: " << Error << "\n";
    return 2;
  }
  return verifyRuns(O);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << usageText();
    return 2;
  }
  std::vector<std::string> Args(argv + 2, argv + argc);
  std::string Cmd = argv[1];
  // `--version` on every subcommand too (before "--": after it, it is the job's argument).
  for (const std::string &A : Args) {
    if (A == "--")
      break;
    if (A == "--version" && Cmd[0] != '-') {
      std::cout << "syncwatch " << SYNCWATCH_VERSION << "\n";
      return 0;
    }
  }
  if (Cmd == "run")
    return run(Args);
  if (Cmd == "replay")
    return replay(Args);
  if (Cmd == "calibrate")
    return calibrate(Args);
  if (Cmd == "merge")
    return merge(Args);
  if (Cmd == "confirm")
    return confirm(Args);
  if (Cmd == "verify")
    return verify(Args);
  if (Cmd == "gate")
    return gate(Args);
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help") {
    std::cout << usageText();
    return 0;
  }
  if (Cmd == "--version") {
    std::cout << "syncwatch " << SYNCWATCH_VERSION << "\n";
    return 0;
  }
  return badArguments("", (Cmd[0] == '-' ? "unknown option '" : "unknown command '") + Cmd +
                              "' (commands: run, replay, merge, confirm, verify, gate, calibrate)");
}
