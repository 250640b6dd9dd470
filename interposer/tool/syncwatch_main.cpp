// syncwatch: the runtime half's command line.
//   syncwatch run [--out DIR] [--threshold-ms N] [--record] -- cmd args...
//       runs cmd with libsyncwatch.so preloaded; returns cmd's exit code; prints where the
//       report went
//   syncwatch calibrate [--out profile.json] [--spin-ms N]
//       measures which calls block on this GPU and driver (syncwatch-calibrate); writes a profile
//   syncwatch replay [--format text|json|sarif] [--threshold-ms N] [--window N [--lag-ms L]]
//                    [--trace OUT.json] FILE.swrec
//       runs the engine on a recorded event stream, offline (no GPU needed); with --window,
//       feeds it the way libsyncwatch.so does - through a bounded window, GPU records
//       arriving L ms after their work ended (CUPTI's buffering) - to test the windowing
#include "../engine/Engine.h"
#include "../engine/CalibrationProfile.h"
#include "../engine/EventWindow.h"
#include "../engine/TraceWriter.h"
#include "../engine/Utilization.h"

#include "syncwatch/report.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {

int usage() {
  std::cerr << "usage: syncwatch run [--out DIR] [--threshold-ms N] [--record] [--profile FILE] -- cmd args...\n"
               "       syncwatch calibrate [--out profile.json] [--spin-ms N]\n"
               "       syncwatch replay [--format text|json|sarif] [--threshold-ms N] [--window N [--lag-ms L]]\n"
               "                        [--trace OUT.json] [--profile FILE] FILE.swrec\n";
  return 2;
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

// Feeds a recording in the order libsyncwatch.so would have seen it: a call when it
// returned, a GPU record LagNs after its work ended.
void replayThroughWindow(const EventLog &Log, Engine &E, std::size_t Capacity, std::uint64_t LagNs,
                         const EngineConfig &Cfg) {
  EventWindow W(E, Capacity, Cfg);
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
  W.flush();
  E.consume(Sites);
}

int replay(const std::vector<std::string> &Args) {
  std::string Format = "text", File;
  EngineConfig Cfg;
  std::size_t Window = 0;
  std::uint64_t LagNs = 0;
  std::string TraceFile, ProfileFile;
  for (std::size_t I = 0; I < Args.size(); ++I) {
    if (Args[I] == "--format" && I + 1 < Args.size())
      Format = Args[++I];
    else if (Args[I] == "--threshold-ms" && I + 1 < Args.size())
      Cfg.HostWaitThresholdNs = static_cast<std::uint64_t>(std::atof(Args[++I].c_str()) * 1e6);
    else if (Args[I] == "--window" && I + 1 < Args.size())
      Window = std::strtoull(Args[++I].c_str(), nullptr, 10);
    else if (Args[I] == "--trace" && I + 1 < Args.size())
      TraceFile = Args[++I];
    else if (Args[I] == "--lag-ms" && I + 1 < Args.size())
      LagNs = static_cast<std::uint64_t>(std::atof(Args[++I].c_str()) * 1e6);
    else if (Args[I] == "--profile" && I + 1 < Args.size())
      ProfileFile = Args[++I];
    else if (File.empty())
      File = Args[I];
    else
      return usage();
  }
  if (File.empty() || (Format != "text" && Format != "json" && Format != "sarif"))
    return usage();
  std::ifstream In(File);
  if (!In) {
    std::cerr << "syncwatch: error: cannot read '" << File << "'\n";
    return 2;
  }
  ParseResult P = readEventLog(In);
  if (!P.Error.empty()) {
    std::cerr << "syncwatch: error: " << File << ": " << P.Error << "\n";
    return 2;
  }
  CalibrationProfile Profile;
  if (!ProfileFile.empty()) {
    std::string Error;
    if (!readCalibrationProfile(ProfileFile, Profile, Error)) {
      std::cerr << "syncwatch: error: --profile: " << Error << "\n";
      return 2;
    }
  }
  Engine E(Cfg);
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
    replayThroughWindow(P.Log, E, Window, LagNs, Cfg);
  else
    E.consume(P.Log);
  Report R;
  R.ToolName = "syncwatch replay";
  R.Findings = E.findings();
  std::uint64_t LostNs = E.hostTimeLostNs();
  UtilizationFigures Figures = Use.figures();
  R.Figures = utilizationProperties(Figures, LostNs, E.kernelsTracedFrom());
  if (!Profile.Path.empty()) {
    annotateWithCalibration(R.Findings, Profile);
    for (auto &F : calibrationFigures(Profile))
      R.Figures.push_back(F);
  }
  if (!TraceFile.empty()) {
    std::ofstream T(TraceFile);
    Trace.write(T, [&](RuleId Rule, std::uint32_t Site) { return E.reported(Rule, Site); });
    if (!T) {
      std::cerr << "syncwatch: error: cannot write the trace to '" << TraceFile << "'\n";
      return 2;
    }
  }
  if (Format == "json")
    writeJson(std::cout, R);
  else if (Format == "sarif")
    writeSarif(std::cout, R);
  else {
    std::cout << "syncwatch: " << R.Findings.size() << " call site(s) stalled the host or serialized streams ("
              << E.callsSeen() << " CUDA calls recorded)\n";
    writeText(std::cout, R.Findings, diskLineReader(), TextOptions{false, false});
    std::cout << utilizationText(Figures, E.streams(), LostNs, E.kernelsTracedFrom());
    if (!Profile.Path.empty())
      std::cout << "calibration profile: " << Profile.Path << " (" << Profile.Device << ")\n";
  }
  return R.Findings.empty() ? 0 : 1;
}

int run(const std::vector<std::string> &Args) {
  std::string Out = "syncwatch-reports";
  std::vector<char *> Cmd;
  bool Record = false;
  std::string Threshold, Profile;
  std::size_t I = 0;
  for (; I < Args.size() && Args[I] != "--"; ++I) {
    if (Args[I] == "--out" && I + 1 < Args.size())
      Out = Args[++I];
    else if (Args[I] == "--threshold-ms" && I + 1 < Args.size())
      Threshold = Args[++I];
    else if (Args[I] == "--record")
      Record = true;
    else if (Args[I] == "--profile" && I + 1 < Args.size())
      Profile = Args[++I];
    else
      return usage();
  }
  if (I + 1 >= Args.size())
    return usage();
  for (++I; I < Args.size(); ++I)
    Cmd.push_back(const_cast<char *>(Args[I].c_str()));
  Cmd.push_back(nullptr);

  std::string Lib = selfDir() + "/libsyncwatch.so";
  if (access(Lib.c_str(), R_OK) != 0) {
    std::cerr << "syncwatch: error: " << Lib << " not found (build with -DSYNCWATCH_BUILD_INTERPOSER=ON)\n";
    return 2;
  }
  // Reports go where the library can write them; say before the run when that is not Out,
  // and after it, where they really went.
  mkdir(Out.c_str(), 0755);
  char AbsOut[PATH_MAX];
  if (realpath(Out.c_str(), AbsOut))
    Out = AbsOut;
  struct stat St;
  std::string Unwritable;
  if (stat(Out.c_str(), &St) != 0 || !S_ISDIR(St.st_mode))
    Unwritable = "it is not a directory that can be created";
  else if (access(Out.c_str(), W_OK) != 0)
    Unwritable = "it is not writable";
  if (!Unwritable.empty())
    std::cerr << "syncwatch: warning: cannot write reports to '" << Out << "' (" << Unwritable
              << "); findings will be on stderr only\n";
  const char *Old = std::getenv("LD_PRELOAD");
  std::string Preload = Lib + (Old && *Old ? std::string(":") + Old : "");
  setenv("LD_PRELOAD", Preload.c_str(), 1);
  // The driver loads and starts it at cuInit in a process that had no CUDA when it started
  // and loads it later (a plugin dlopen'ed by a C++ program); another tool's injection
  // library is left in place.
  setenv("CUDA_INJECTION64_PATH", Lib.c_str(), 0);
  setenv("SYNCWATCH_OUT", Out.c_str(), 1);
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
  std::time_t Began = std::time(nullptr);
  pid_t Pid = fork();
  if (Pid == 0) {
    execvp(Cmd[0], Cmd.data());
    std::cerr << "syncwatch: error: cannot run '" << Cmd[0] << "': " << std::strerror(errno) << "\n";
    _exit(127);
  }
  int Status = 0;
  waitpid(Pid, &Status, 0);
  // Every process of the run (torchrun's workers, a shell's children) writes its own.
  std::vector<std::string> Reports;
  if (Unwritable.empty())
    if (DIR *D = opendir(Out.c_str())) {
      while (dirent *E = readdir(D)) {
        std::string Name = E->d_name;
        struct stat F;
        if (Name.rfind("syncwatch-", 0) == 0 && Name.size() > 15 && Name.compare(Name.size() - 5, 5, ".json") == 0 &&
            stat((Out + "/" + Name).c_str(), &F) == 0 && F.st_mtime >= Began)
          Reports.push_back(Name.substr(0, Name.size() - 5));
      }
      closedir(D);
    }
  std::sort(Reports.begin(), Reports.end());
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
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  return 128 + WTERMSIG(Status);
}

// Runs syncwatch-calibrate (built next to this tool when nvcc was found): measures this
// GPU and driver, prints the table, writes the profile.
int calibrate(const std::vector<std::string> &Args) {
  std::string Tool = selfDir() + "/syncwatch-calibrate";
  if (access(Tool.c_str(), X_OK) != 0) {
    std::cerr << "syncwatch: error: " << Tool << " not found (it is built when CMake finds nvcc)\n";
    return 2;
  }
  std::vector<char *> Cmd{const_cast<char *>(Tool.c_str())};
  for (const std::string &A : Args)
    Cmd.push_back(const_cast<char *>(A.c_str()));
  Cmd.push_back(nullptr);
  execv(Tool.c_str(), Cmd.data());
  std::cerr << "syncwatch: error: cannot run '" << Tool << "': " << std::strerror(errno) << "\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::vector<std::string> Args(argv + 2, argv + argc);
  std::string Cmd = argv[1];
  if (Cmd == "run")
    return run(Args);
  if (Cmd == "replay")
    return replay(Args);
  if (Cmd == "calibrate")
    return calibrate(Args);
  return usage();
}
