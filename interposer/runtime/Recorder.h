// Collects what capture sees into bounded windows of events, feeds them to the engine, and
// writes the reports at exit. No CUPTI here: capture/Capture.cpp is the only CUPTI code.
#pragma once

#include "../capture/CallSites.h"
#include "../engine/Engine.h"
#include "../engine/CalibrationProfile.h"
#include "../engine/EventWindow.h"
#include "../engine/TraceWriter.h"
#include "../engine/Utilization.h"
#include "Config.h"

#include <memory>
#include <mutex>
#include <ostream>

namespace syncwatch::runtime {

class Recorder {
public:
  explicit Recorder(const Config &C);

  // Stack: null for a call whose site no rule can need (a fast explicit sync, say).
  void addCall(ApiCall Call, const RawStack *Stack);
  void addWork(std::vector<GpuWork> Work);
  void addStream(const StreamInfo &S);
  // Kernel activity records exist from this CUPTI time on (UINT64_MAX: not traced).
  void kernelsTracedFrom(std::uint64_t Ns);

  // The GPU(s) the process's work ran on ("GPU-<uuid>"), found by capture at exit.
  void setGpu(std::string Gpu);
  void setDriver(std::string Driver);
  // Runs the engine on what is buffered, writes the reports; once.
  void finish(const char *Why);
  const Config &config() const { return Cfg; }

private:
  static std::string processName();
  // Rank, job, host, pid and command line, read when the report is written.
  ProcessIdentity currentProcess() const;
  std::string Gpu, Driver;
  void writeTrace(const std::string &Dir, const std::string &BaseName, std::ostream &Err);
  Config Cfg;
  CalibrationProfile Profile;  // SYNCWATCH_PROFILE, when it could be read
  std::mutex M;
  EventLog Recorded;            // all events, only with SYNCWATCH_RECORD=1
  SiteTable Sites;
  Engine Analysis;
  EventWindow Window;           // bounded: analyzed as it fills
  Utilization Use;              // overlap figures, bounded
  std::unique_ptr<TraceBuilder> Trace;  // SYNCWATCH_TRACE=1 only, bounded
  bool Finished = false;
};

} // namespace syncwatch::runtime
