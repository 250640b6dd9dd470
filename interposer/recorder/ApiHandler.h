// What syncwatch does at a CUDA call's entry and exit: the fast path every recorded call
// takes (bench/runtime_cost.sh measures it without a GPU). No CUPTI here - cupti/ owns the
// subscription, decodes each callback into an ApiCallback and passes its few actions in - so the
// benchmark drives these same handlers with synthetic callback data.
//
// Per call: two clock reads, a site key (SiteKeys.h: a few stack loads and table lookups,
// plus the innermost user Python frame read from the thread state), one fixed-size record
// into the thread's ring. No unwinding, no allocation, no lock, no string. A site's first
// occurrences take the slow path (a full unwind that learns the key); symbols are resolved
// at report time, once per distinct site.
#pragma once

#include "HandlerParts.h"

#include "../filter/ApiCallback.h"
#include "../filter/CallFilter.h"

#include <cstdint>
#include <string_view>

namespace syncwatch::runtime {

class Recorder;

struct HandlerHooks {
  Recorder &(*TheRecorder)() = nullptr;   // made at the first recorded call
  void (*EnableLaunches)() = nullptr;     // launch callbacks on / off (CallFilter.h)
  void (*DisableLaunches)() = nullptr;
  void (*TraceKernels)() = nullptr;       // kernel activity from now on
  // CUPTI's id of a stream handle in a context (UINT32_MAX: unknown); null: unknown.
  std::uint32_t (*StreamIdOf)(const void *Context, const void *Stream) = nullptr;
  // A graph capture opened (true) or the last open one closed (CaptureTracker.h), and the
  // node count of a graph a capture made.
  void (*CapturesOpen)(bool Open) = nullptr;
  std::uint32_t (*GraphNodes)(const void *Graph) = nullptr;
  bool AutoKernels = true;                // SYNCWATCH_KERNELS=auto: a stall turns kernels on
  std::uint64_t ThresholdNs = 1'000'000;  // a call this long is slow (SYNCWATCH_THRESHOLD_MS)
  // SYNCWATCH_MEASURE=all:SECONDS: the filter's measure-all mode ends at the first call that
  // returns this long after the first recorded one (0: it lasts the whole run, or is off).
  std::uint64_t MeasureForNs = 0;
};
// Once, before the first callback (HostClock must be started).
void setHandlerHooks(const HandlerHooks &H);

void onApiEnter(const ApiCallback &Call, const CallbackInfo &Info);
void onApiExit(const ApiReturn &Call, const CallbackInfo &Info);
// CUPTI created a context inside the call this thread is in: that call's time is start-up.
void noteContextCreated();

// torch.compile's word on its CUDA graphs (sites/TorchGraphHints.h), from the logging thread
// with the GIL held: a record of its own (api "torch.compile", no time) at the user's Python
// line, with a TorchSkip or TorchHint capture note holding torch's message. Nothing before the
// recorder has started.
void noteTorchGraphHint(bool Skipped, std::string_view Message);

// bench/runtime_cost: where the handlers' time goes (HandlerParts.h). Null (the default)
// measures nothing; set, it adds clock reads of its own.
void measureHandlerParts(HandlerParts *PerThread);

} // namespace syncwatch::runtime
