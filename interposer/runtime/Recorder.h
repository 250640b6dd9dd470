// Collects what capture sees into bounded windows of events, feeds them to the engine, and
// writes the reports at exit. No CUPTI here: capture/Capture.cpp is the only CUPTI code.
#pragma once

#include "../capture/CallSites.h"
#include "../engine/Engine.h"
#include "Config.h"

#include <mutex>
#include <ostream>

namespace syncwatch::runtime {

class Recorder {
public:
  explicit Recorder(const Config &C);

  void addCall(ApiCall Call, const RawStack &Stack);
  void addWork(const GpuWork &W);
  void addStream(const StreamInfo &S);

  // Runs the engine on what is buffered, writes the reports; once.
  void finish(const char *Why);
  const Config &config() const { return Cfg; }

private:
  void analyzeWindowLocked();   // engine.consume + keep the raw events only if recording
  void keepForRecordingLocked();
  Config Cfg;
  std::mutex M;
  EventLog Window;
  EventLog Recorded;            // all events, only with SYNCWATCH_RECORD=1
  SiteTable Sites;
  Engine Analysis;
  bool Finished = false;
};

} // namespace syncwatch::runtime
