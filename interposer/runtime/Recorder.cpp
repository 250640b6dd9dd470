#include "Recorder.h"

#include "syncwatch/report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace syncwatch::runtime {

Recorder::Recorder(const Config &C) : Cfg(C), Analysis(EngineConfig{C.ThresholdNs}) {}

void Recorder::addCall(ApiCall Call, const RawStack &Stack) {
  std::lock_guard<std::mutex> L(M);
  Call.Site = Sites.intern(Stack);
  Window.Calls.push_back(std::move(Call));
  if (Window.Calls.size() + Window.Work.size() > Cfg.WindowEvents)
    analyzeWindowLocked();
}

void Recorder::addWork(const GpuWork &W) {
  std::lock_guard<std::mutex> L(M);
  Window.Work.push_back(W);
}

void Recorder::addStream(const StreamInfo &S) {
  std::lock_guard<std::mutex> L(M);
  Window.Streams.push_back(S);
}

// Bounded memory: a full window is analyzed and dropped; only aggregates stay. Activity
// records arrive after their API calls (CUPTI flushes buffers later), so a pair split by a
// window boundary is missed - one event in SYNCWATCH_WINDOW, documented in docs/runtime.md.
void Recorder::analyzeWindowLocked() {
  Analysis.consume(Window);
  keepForRecordingLocked();
  Window = EventLog{};
}

void Recorder::keepForRecordingLocked() {
  if (!Cfg.Record)
    return;
  Recorded.Streams.insert(Recorded.Streams.end(), Window.Streams.begin(), Window.Streams.end());
  Recorded.Calls.insert(Recorded.Calls.end(), Window.Calls.begin(), Window.Calls.end());
  Recorded.Work.insert(Recorded.Work.end(), Window.Work.begin(), Window.Work.end());
}

static bool writable(const std::string &Dir) {
  struct stat St;
  return !Dir.empty() && ::stat(Dir.c_str(), &St) == 0 && S_ISDIR(St.st_mode) && ::access(Dir.c_str(), W_OK) == 0;
}

void Recorder::finish(const char *Why) {
  std::lock_guard<std::mutex> L(M);
  if (Finished)
    return;
  Finished = true;
  Analysis.consume(Window);
  keepForRecordingLocked();
  // Symbolize only the sites that made a finding (and all, when recording).
  EventLog SiteNames;
  for (const auto &[Key, A] : Analysis.aggregates())
    SiteNames.Sites[A.Site] = Sites.resolve(A.Site);
  if (Cfg.Record)
    for (std::uint32_t S = 1; S <= Sites.size(); ++S)
      Recorded.Sites[S] = Sites.resolve(S);
  Analysis.consume(SiteNames);

  // A process that made no CUDA call (a shell, a compiler, addr2line started by a job under
  // LD_PRELOAD) says nothing and writes nothing.
  if (Analysis.callsSeen() == 0)
    return;
  Report R;
  R.ToolName = "libsyncwatch";
  R.ToolVersion = "0.1.0";
  R.Findings = Analysis.findings();
  R.FilesAnalyzed = 0;

  std::string Pid = std::to_string(::getpid());
  std::ostream &Err = std::cerr;
  if (!Cfg.Quiet) {
    Err << "syncwatch: " << R.Findings.size() << " call site(s) stalled the host or serialized streams"
        << " (" << Analysis.callsSeen() << " CUDA calls seen, " << Why << ")\n";
    writeText(Err, R.Findings, diskLineReader(), TextOptions{true, false});
  }
  if (Cfg.OutDir.empty())
    return;
  if (!writable(Cfg.OutDir)) {
    Err << "syncwatch: cannot write to SYNCWATCH_OUT='" << Cfg.OutDir
        << "'; the report is on stderr only\n";
    if (Cfg.Quiet)
      writeText(Err, R.Findings, diskLineReader(), TextOptions{true, false});
    return;
  }
  std::string Base = Cfg.OutDir + "/syncwatch-" + Pid;
  {
    std::ofstream J(Base + ".json");
    writeJson(J, R);
  }
  {
    std::ofstream S(Base + ".sarif");
    writeSarif(S, R);
  }
  if (Cfg.Record) {
    std::ofstream E(Base + ".swrec");
    writeEventLog(E, Recorded);
  }
  if (!Cfg.Quiet)
    Err << "syncwatch: report written to " << Base << ".json and .sarif"
        << (Cfg.Record ? " (events: " + Base + ".swrec)" : std::string()) << "\n";
}

} // namespace syncwatch::runtime
