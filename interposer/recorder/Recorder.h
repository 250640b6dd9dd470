// Collects what capture sees into bounded windows of events, feeds them to the engine, and
// writes the reports at exit. No CUPTI here: cupti/ is the only CUPTI code.
#pragma once

#include "../sites/CallSites.h"
#include "../engine/Engine.h"
#include "../engine/CalibrationEvidence.h"
#include "../engine/EventWindow.h"
#include "../engine/TraceWriter.h"
#include "../engine/Utilization.h"
#include "CallRing.h"
#include "Config.h"

#include <map>
#include <memory>
#include <mutex>
#include <ostream>

namespace syncwatch::runtime {

class Recorder {
public:
  explicit Recorder(const Config &C);

  // The calls the threads' rings hold (CallRing.h), in the order they returned, their
  // times converted to CUPTI's clock. Also done before GPU records are added and at finish.
  void drainCalls();
  // The drainer: a thread of the recorder's own that drains the rings every 10 ms, and when
  // woken (a ring is half full), so that the engine's work per call is not done on the
  // threads that call CUDA. Started once; it stops at finish().
  void startDrainer();
  void wakeDrainer();
  // One call handed over directly (a thread that has no ring).
  void addCallNow(const CallRecord &R);
  // A site's first occurrence: its stack, interned (the same stack gets the same id).
  std::uint32_t internSite(const RawStack &S);
  void addWork(const std::vector<GpuWork> &Work);
  void addStream(const StreamInfo &S);
  // Kernel activity records exist from this CUPTI time on (UINT64_MAX: not traced).
  void kernelsTracedFrom(std::uint64_t Ns);
  // A call the fast path counted whose thread's table was full (SiteCounters).
  void countSpilled(std::uint32_t Site, std::string_view Api, bool Judged);
  // The deferrable launch callbacks went off or on again at this CUPTI time: launches in
  // between are not counted (the report's coverage.launches says "partial").
  void launchCallbacks(bool On, std::uint64_t Ns);

  // A step the program marked ended (SYNCWATCH_STEP, StepTracker.h).
  void noteStep(StepSpan S);

  // The GPU(s) the process's work ran on ("GPU-<uuid>"), found by capture at exit.
  void setGpu(std::string Gpu);
  void setDriver(std::string Driver);
  void setCuptiSharedWith(std::string Who);  // (ProcessIdentity::CuptiSharedWith)
  // Another tool held CUPTI (HeldBy says which): calls were timed at their entry points, no
  // GPU record came. The engine judges waits by their time, and the report says so.
  void setWithoutCupti(std::string HeldBy);
  // Runs the engine on what is buffered, writes the reports; once.
  void finish(const char *Why);
  const Config &config() const { return Cfg; }

private:
  static std::string processName();
  // Rank, job, host, pid and command line, read when the report is written.
  ProcessIdentity currentProcess() const;
  void addCallLocked(ApiCall Call);
  static void *drainerMain(void *Self);
  struct Drainer;
  Drainer *TheDrainer = nullptr;  // never destroyed (the thread may outlive exit handlers)
  void drainLocked();
  std::string Gpu, Driver, CuptiSharedWith, WithoutCupti;
  std::vector<CallRecord> Batch;  // drainLocked's scratch, kept between drains
  void addFigures(Report &R, const UtilizationFigures &Figures);
  void writeSummary(std::ostream &Err, const Report &R, const UtilizationFigures &Figures, const char *Why);
  void writeTrace(const std::string &Dir, const std::string &BaseName, std::ostream &Err);
  Config Cfg;
  CalibrationProfile Profile;  // SYNCWATCH_PROFILE, when it could be read
  std::mutex M;
  EventLog Recorded;            // all events, only with SYNCWATCH_RECORD=1
  std::map<std::pair<std::uint32_t, std::string_view>, CountedCalls> Spilled;
  std::vector<UnwatchedSpan> Unwatched;
  std::vector<StepSpan> Steps;  // bounded as the engine's (StepCosts::kMaxSteps)
  // The counts of calls the fast path did not record: every ring's and the spilled ones.
  std::vector<CountedCalls> countedLocked() const;
  SiteTable Sites;
  Engine Analysis;
  EventWindow Window;           // bounded: analyzed as it fills
  Utilization Use;              // overlap figures, bounded
  std::unique_ptr<TraceBuilder> Trace;  // SYNCWATCH_TRACE=1 only, bounded
  bool Finished = false;
};

} // namespace syncwatch::runtime
