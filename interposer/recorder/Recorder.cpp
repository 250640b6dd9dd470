#include "Recorder.h"

#include "HostClock.h"
#include "SelfStats.h"
#include "Stderr.h"
#include "ThreadNames.h"

#include "syncwatch/file_output.h"
#include "syncwatch/fingerprint.h"
#include "syncwatch/report.h"
#include "syncwatch/source_hash.h"

#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace syncwatch::runtime {

Recorder::Recorder(const Config &C)
    : Cfg(C), Analysis(EngineConfig{C.ThresholdNs}), Window(Analysis, std::min<std::size_t>(C.WindowEvents, kFirstWindowEvents), EngineConfig{C.ThresholdNs}, C.WindowEvents) {
  // Read at start-up, so a bad file is said before the program's own output, once.
  std::string Error;
  if (!Cfg.ProfilePath.empty() && !readCalibrationProfile(Cfg.ProfilePath, Profile, Error))
    writeStderr("syncwatch: SYNCWATCH_PROFILE: " + Error + "; the report will not include a profile\n");
  if (!Cfg.StepName.empty())
    Analysis.trackSteps();  // a step's waits are judged before the step has ended
  if (Cfg.DetectLoops)
    Analysis.detectLoops();
  if (Cfg.Trace) {
    Trace = std::make_unique<TraceBuilder>(TraceOptions{Cfg.TraceEvents, static_cast<std::uint64_t>(::getpid()), processName()});
    Analysis.onOccurrence([this](const Occurrence &O) { Trace->addOccurrence(O); });
  }
}

// SYNCWATCH_RECORD=1 keeps every event as it arrives (unbounded by design: a recording is
// for short reproductions); the analysis itself only ever holds one window.
// After finish() (exit() called on one thread while others still make CUDA calls, or the
// program's own static destructors freeing memory) events are dropped: the report is out.
std::uint32_t Recorder::internSite(const RawStack &S) {
  std::lock_guard<std::mutex> L(M);
  return Sites.intern(S);
}

static ApiCall callOf(const CallRecord &R, const TickConverter &C) {
  ApiCall A;
  A.Correlation = R.Correlation;
  A.Thread = R.Thread;
  A.Api = R.Api;
  A.Enter = C.toNs(R.Enter);
  A.Exit = C.toNs(R.Exit);
  A.Site = R.Site;
  A.CreatedContext = R.CreatedContext;
  if (R.OffTorchStream)
    A.OffTorchStream = R.CurrentStream;
  if (!R.OffTorchStream)
    A.CaptureNumber = R.CurrentStream;  // (a capture's call: its note's number)
  return A;
}

struct Recorder::Drainer {
  std::mutex M;
  std::condition_variable Wake;
  bool Woken = false;
};

void Recorder::startDrainer() {
  if (TheDrainer)
    return;
  TheDrainer = new Drainer;
  // The thread takes no signals: they stay the program's.
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  pthread_t T;
  if (pthread_create(&T, nullptr, drainerMain, this) == 0)
    pthread_detach(T);
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
}

void Recorder::wakeDrainer() {
  if (!TheDrainer)
    return;
  {
    std::lock_guard<std::mutex> G(TheDrainer->M);
    TheDrainer->Woken = true;
  }
  TheDrainer->Wake.notify_one();
}

void *Recorder::drainerMain(void *Self) {
  auto *R = static_cast<Recorder *>(Self);
  Drainer &D = *R->TheDrainer;
  for (;;) {
    {
      std::unique_lock<std::mutex> G(D.M);
      D.Wake.wait_for(G, std::chrono::milliseconds(10), [&] { return D.Woken; });
      D.Woken = false;
    }
    std::lock_guard<std::mutex> L(R->M);
    if (R->Finished)
      return nullptr;
    std::uint64_t T0 = selfStatsOn() ? hostTicks() : 0;
    R->drainLocked();
    if (selfStatsOn())
      countDrain(hostTicks() - T0);
  }
}

void Recorder::drainCalls() {
  std::lock_guard<std::mutex> L(M);
  drainLocked();
}

void Recorder::addCallNow(const CallRecord &R) {
  std::lock_guard<std::mutex> L(M);
  drainLocked();
  addCallLocked(callOf(R, TickConverter::anchorNow()));
}

// Rings are drained together and their calls merged by exit time, so the window sees calls
// in the order they returned, as it did when each call took the lock.
void Recorder::drainLocked() {
  Batch.clear();
  forEachRing([&](CallRing &Ring) { Ring.drain([&](const CallRecord &R) { Batch.push_back(R); }); });
  if (Batch.empty() || Finished)
    return;
  std::stable_sort(Batch.begin(), Batch.end(), [](const CallRecord &A, const CallRecord &B) { return A.Exit < B.Exit; });
  TickConverter C = TickConverter::anchorNow();
  for (const CallRecord &R : Batch)
    addCallLocked(callOf(R, C));
}

void Recorder::addCallLocked(ApiCall Call) {
  if (Finished)
    return;
  if (Cfg.Record)
    Recorded.Calls.push_back(Call);
  if (Trace)
    Trace->addCall(Call);
  Window.addCall(std::move(Call));
}

void Recorder::addWork(const std::vector<GpuWork> &Work) {
  std::lock_guard<std::mutex> L(M);
  if (Finished)
    return;
  drainLocked();  // the calls that issued this work come first
  if (Cfg.Record)
    Recorded.Work.insert(Recorded.Work.end(), Work.begin(), Work.end());
  for (const GpuWork &W : Work) {
    Use.add(W);
    if (Trace)
      Trace->addWork(W);
    Window.addWork(W);
  }
}

void Recorder::addStream(const StreamInfo &S) {
  std::lock_guard<std::mutex> L(M);
  if (Finished)
    return;
  if (Cfg.Record)
    Recorded.Streams.push_back(S);
  if (Trace)
    Trace->addStream(S);
  Window.addStream(S);
}

void Recorder::kernelsTracedFrom(std::uint64_t Ns) {
  std::lock_guard<std::mutex> L(M);
  Recorded.KernelsTracedFrom = Ns;
  Window.setKernelsTracedFrom(Ns);
}

void Recorder::countSpilled(std::uint32_t Site, std::string_view Api, bool Judged) {
  std::lock_guard<std::mutex> L(M);
  CountedCalls &C = Spilled[{Site, Api}];
  C.Site = Site;
  C.Api = Api;
  ++C.Calls;
  C.Judged += Judged;
}

void Recorder::launchCallbacks(bool On, std::uint64_t Ns) {
  std::lock_guard<std::mutex> L(M);
  if (!On)
    Unwatched.push_back({Ns, UINT64_MAX});
  else if (!Unwatched.empty() && Unwatched.back().To == UINT64_MAX)
    Unwatched.back().To = std::max(Ns, Unwatched.back().From);
}

void Recorder::noteStep(StepSpan S) {
  std::lock_guard<std::mutex> L(M);
  if (Finished || Steps.size() > StepCosts::kMaxSteps)  // (one past: the engine says partial)
    return;
  Steps.push_back(std::move(S));
}

std::vector<CountedCalls> Recorder::countedLocked() const {
  std::map<std::pair<std::uint32_t, std::string_view>, CountedCalls> All = Spilled;
  forEachRing([&](CallRing &Ring) {
    Ring.Counted.forEach([&](std::uint32_t Site, std::string_view Api, std::uint64_t Calls, std::uint64_t Judged) {
      CountedCalls &C = All[{Site, Api}];
      C.Site = Site;
      C.Api = Api;
      C.Calls += Calls;
      C.Judged += Judged;
    });
  });
  std::vector<CountedCalls> Out;
  for (auto &[Key, C] : All)
    Out.push_back(C);
  return Out;
}

std::string Recorder::processName() {
  std::ifstream Comm("/proc/self/comm");
  std::string Name;
  std::getline(Comm, Name);
  return Name.empty() ? "process" : Name;
}

ProcessIdentity Recorder::currentProcess() const {
  ProcessIdentity P = identityFromEnvironment([](const char *Name) { return std::getenv(Name); });
  P.Pid = static_cast<std::uint64_t>(::getpid());
  char Host[256] = {};
  if (::gethostname(Host, sizeof Host - 1) == 0)
    P.Host = Host;
  P.Gpu = Gpu;
  P.Driver = Driver;
  P.CuptiSharedWith = CuptiSharedWith;
  // argv, NUL-separated in /proc; bounded (a job's command line can be long).
  std::ifstream Cmd("/proc/self/cmdline", std::ios::binary);
  std::string Args((std::istreambuf_iterator<char>(Cmd)), std::istreambuf_iterator<char>());
  while (!Args.empty() && Args.back() == '\0')
    Args.pop_back();
  for (char &C : Args)
    if (C == '\0')
      C = ' ';
  P.CommandLine = Args.substr(0, 2000);
  return P;
}

void Recorder::setGpu(std::string G) {
  std::lock_guard<std::mutex> L(M);
  Gpu = std::move(G);
}

void Recorder::setCuptiSharedWith(std::string Who) {
  std::lock_guard<std::mutex> L(M);
  CuptiSharedWith = std::move(Who);
}

void Recorder::setWithoutCupti(std::string HeldBy) {
  std::lock_guard<std::mutex> L(M);
  WithoutCupti = std::move(HeldBy);
  Analysis.seenWithoutCupti();
}

void Recorder::setDriver(std::string D) {
  std::lock_guard<std::mutex> L(M);
  Driver = std::move(D);
}

// SYNCWATCH_OUT=reports/run1 names a directory the user expects to find afterwards, as
// `syncwatch run --out` makes it: a missing one is created with its parents (mkdir -p), at
// exit, when there is something to write. A path that exists but is no directory, or is
// not writable, still gets the one "cannot write" line.
static void makeDirectories(const std::string &Dir) {
  for (std::size_t Slash = Dir.find('/', 1);; Slash = Dir.find('/', Slash + 1)) {
    std::string Prefix = Dir.substr(0, Slash);
    if (!Prefix.empty())
      ::mkdir(Prefix.c_str(), 0755);  // EEXIST and the like: judged by writable() after
    if (Slash == std::string::npos)
      return;
  }
}

static bool writable(const std::string &Dir) {
  if (!Dir.empty())
    makeDirectories(Dir);
  struct stat St;
  return !Dir.empty() && ::stat(Dir.c_str(), &St) == 0 && S_ISDIR(St.st_mode) && ::access(Dir.c_str(), W_OK) == 0;
}

// What a process says on stderr at its end: its findings, or that it had none, and the
// run's figures (utilization, steps, graph captures).
void Recorder::writeSummary(std::ostream &Err, const Report &R, const UtilizationFigures &Figures, const char *Why) {
  if (R.Findings.empty()) {
    // A clean process says so in one line: the figures are in the JSON report.
    Err << "syncwatch: no call site stalled the host or serialized streams (" << Analysis.callsSeen()
        << " CUDA calls seen, " << Why << ")\n";
    if (std::string Captures = capturesText(R.Figures); !Captures.empty())
      Err << "syncwatch: " << Captures;
    if (std::string Ready = readinessText(R.Figures); !Ready.empty())
      Err << "syncwatch: " << Ready;
  } else {
    Err << "syncwatch: " << findingsHeadline(R.Findings) << " (" << Analysis.callsSeen() << " CUDA calls seen, " << Why << ")\n";
    writeText(Err, R.Findings, diskLineReader(), TextOptions{true, false});
    Err << "syncwatch: " << utilizationText(Figures, Analysis.streams(), Analysis.hostTimeLostNs(), Analysis.kernelsTracedFrom());
    if (std::string Steps = stepsText(R.Figures); !Steps.empty())
      Err << "syncwatch: " << Steps;
    if (std::string Captures = capturesText(R.Figures); !Captures.empty())
      Err << "syncwatch: " << Captures;
    if (std::string Ready = readinessText(R.Figures); !Ready.empty())
      Err << "syncwatch: " << Ready;
    if (!Profile.Path.empty())
      Err << "syncwatch: calibration profile " << Profile.Path << " (" << Profile.Device << ")\n";
  }
}

// The report's figures: the GPU's overlap, coverage, steps, captures, readiness, the
// window's own, and the calibration profile's.
void Recorder::addFigures(Report &R, const UtilizationFigures &Figures) {
  R.Figures = Analysis.reportFigures(Figures);
  // How large the event window grew, and the GPU records that came after their call was
  // judged without them (each a call whose pageable copy or serialization may be missed).
  if (!WithoutCupti.empty())
    R.Figures.push_back({"cupti", "held by another tool (" + WithoutCupti +
                                      "): host waits timed at the CUDA runtime's and driver's entry points; no GPU records"});
  R.Figures.push_back({"window.events", std::to_string(Window.capacity())});
  R.Figures.push_back({"window.lateRecords", std::to_string(Window.lateRecords())});
  if (!Profile.Path.empty()) {
    annotateWithCalibration(R.Findings, Profile);
    for (auto &F : calibrationFigures(Profile))
      R.Figures.push_back(F);
  }
}

void Recorder::finish(const char *Why) {
  std::lock_guard<std::mutex> L(M);
  if (Finished)
    return;
  drainLocked();
  Finished = true;
  Window.flush();
  if (Cfg.BenchToggle) {  // (the engine's work up to here is what the benchmark times)
    writeStderr("syncwatch: SYNCWATCH_BENCH_TOGGLE=1, a benchmark run: no report written (calls made while "
                "syncwatch_set_active had switched it off were not seen)\n");
    return;
  }
  // What the fast path counted without recording: coverage, not events to judge.
  EventLog Counts;
  Counts.Counted = countedLocked();
  Counts.LaunchesUnwatched = Unwatched;
  Counts.CountsAllCalls = true;
  Counts.Steps = std::move(Steps);  // (the engine attributes its waits to them at the end)
  Analysis.consume(Counts);
  if (Cfg.Record) {
    Recorded.Counted = Counts.Counted;
    Recorded.LaunchesUnwatched = Counts.LaunchesUnwatched;
    Recorded.CountsAllCalls = true;
    Recorded.Steps = Counts.Steps;
  }
  // Symbolize only the sites that made a finding (and all, when recording).
  EventLog SiteNames;
  for (const auto &[Key, A] : Analysis.aggregates()) {
    SiteNames.Sites[A.Site] = Sites.resolve(A.Site);
    if (A.Capture && A.Capture->BeginSite)  // (the line that began the capture it broke)
      SiteNames.Sites[A.Capture->BeginSite] = Sites.resolve(A.Capture->BeginSite);
  }
  for (std::uint32_t S : Analysis.coverageSites())
    if (!SiteNames.Sites.count(S))
      SiteNames.Sites[S] = Sites.resolve(S);
  for (std::uint32_t S : Analysis.readinessSites())
    if (!SiteNames.Sites.count(S))
      SiteNames.Sites[S] = Sites.resolve(S);
  if (Cfg.Record)
    for (std::uint32_t S = 1; S <= Sites.size(); ++S)
      Recorded.Sites[S] = Sites.resolve(S);
  // Who paid a site's cost: the main thread (its id is the pid) and the names of the
  // threads alive now or remembered when they ended (ThreadNames.h).
  SiteNames.Process.Pid = static_cast<std::uint64_t>(::getpid());
  SiteNames.ThreadNames = threadNames();
  if (Cfg.Record)
    Recorded.ThreadNames = SiteNames.ThreadNames;
  Analysis.consume(SiteNames);

  // A process that made no CUDA call (a shell, a compiler, addr2line started by a job under
  // LD_PRELOAD) says nothing and writes nothing.
  if (Analysis.callsSeen() == 0)
    return;
  ProcessIdentity Process = currentProcess();
  Recorded.Process = Process;
  Report R;
  R.Process = Process.pairs();
  R.ToolName = "libsyncwatch";
  R.ToolVersion = SYNCWATCH_VERSION;
  R.Findings = Analysis.findings();
  R.Coverage = Analysis.coverage();
  R.SourceRoot = Cfg.SourceRoot.empty() ? defaultSourceRoot(Cfg.StartDir) : Cfg.SourceRoot;
  R.Artifacts = sourceArtifacts(R);  // what confirm compares with the lint's checkout
  setFingerprints(R);
  UtilizationFigures Figures = Use.figures();
  addFigures(R, Figures);
  R.FilesAnalyzed = 0;

  // Composed in memory and written with write(2): see Stderr.h.
  std::ostringstream Err;
  if (!Cfg.Quiet)
    writeSummary(Err, R, Figures, Why);
  writeStderr(Err.str());
  Err.str("");
  // The trace goes to SYNCWATCH_OUT, or to the directory the process started in.
  if (Trace)
    writeTrace(Cfg.OutDir.empty() ? Cfg.StartDir : Cfg.OutDir, reportBaseName(Process), Err);
  if (Cfg.OutDir.empty()) {
    writeStderr(Err.str());
    return;
  }
  if (!writable(Cfg.OutDir)) {
    Err << "syncwatch: cannot write to SYNCWATCH_OUT='" << Cfg.OutDir << "'; the report is on stderr only\n";
    if (Cfg.Quiet)
      writeText(Err, R.Findings, diskLineReader(), TextOptions{true, false});
    writeStderr(Err.str());
    return;
  }
  std::string Base = Cfg.OutDir + "/" + reportBaseName(Process);
  std::vector<std::string> Failed;
  // All or nothing (syncwatch/file_output.h): a full disk leaves no half report.
  auto Write = [&](const std::string &Path, auto &&Body) {
    std::ostringstream F;
    Body(F);
    std::string Why;
    if (!writeFileAtomically(Path, F.str(), Why))
      Failed.push_back(Path + "' failed (" + Why + ")");
  };
  Write(Base + ".json", [&](std::ostream &O) { writeJson(O, R); });
  Write(Base + ".sarif", [&](std::ostream &O) { writeSarif(O, R); });
  if (Cfg.Record)
    Write(Base + ".swrec", [&](std::ostream &O) { writeEventLog(O, Recorded); });
  for (const std::string &F : Failed)
    Err << "syncwatch: writing '" << F << "; the findings are on stderr above\n";
  if (!Cfg.Quiet && Failed.empty())
    Err << "syncwatch: report written to " << Base << ".json and .sarif"
        << (Cfg.Record ? " (events: " + Base + ".swrec)" : std::string()) << "\n";
  writeStderr(Err.str());
}

void Recorder::writeTrace(const std::string &Dir, const std::string &BaseName, std::ostream &Err) {
  std::string Path = Dir + "/" + BaseName + ".trace.json";
  if (!writable(Dir)) {
    Err << "syncwatch: cannot write the trace to '" << Dir << "'\n";
    return;
  }
  std::ostringstream T;
  Trace->write(T, [this](RuleId Rule, std::uint32_t Site) { return Analysis.reported(Rule, Site); });
  std::string Why;
  if (!writeFileAtomically(Path, T.str(), Why))
    Err << "syncwatch: writing the trace to '" << Path << "' failed: " << Why << "\n";
  else if (!Cfg.Quiet)
    Err << "syncwatch: trace written to " << Path << " (open in ui.perfetto.dev)\n";
}

} // namespace syncwatch::runtime
