// SYNCWATCH_* environment variables (docs/runtime.md). A bad value gets one message on
// stderr and the default.
#pragma once

#include <cstdint>
#include <string>

namespace syncwatch::runtime {

// SYNCWATCH_KERNELS: when kernel activity records are collected (see cupti/Subscriber.cpp).
enum class KernelTrace { Off, Auto, Always };

// 16,384 events: 1 MiB of calls, 0.9 MiB of GPU work at most (issue 40's memory bound).
inline constexpr std::size_t kFirstWindowEvents = 16384;

struct Config {
  bool Disable = false;               // SYNCWATCH_DISABLE=1: do nothing (the library stays loaded)
  std::string OutDir;                 // SYNCWATCH_OUT: where JSON/SARIF (and recordings) go,
                                      // made absolute at start (the program may chdir)
  std::string StartDir;               // the working directory at start: the trace's default
  std::uint64_t ThresholdNs = 1'000'000;  // SYNCWATCH_THRESHOLD_MS (default 1)
  bool Record = false;                // SYNCWATCH_RECORD=1: also write the raw event stream
  KernelTrace Kernels = KernelTrace::Auto;  // SYNCWATCH_KERNELS=auto|1|0
  // SYNCWATCH_WINDOW: the most events kept before analysis. The window starts at
  // kFirstWindowEvents and grows only when GPU records come later than it holds (EventWindow.h).
  std::size_t WindowEvents = 65536;
  // SYNCWATCH_ACTIVITY_BUFFER_KB: the host buffers syncwatch gives CUPTI for its records
  // (ActivityBuffers.cpp); SYNCWATCH_CUPTI_DEVICE_BUFFER_KB: CUPTI's own device buffer
  // (CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE; 0: CUPTI's default). Sized by measurement
  // (docs/benchmarks.md, issue 40).
  std::size_t ActivityBufferKb = 256;  // measured: docs/benchmarks.md, "Activity buffer sizes"
  std::size_t CuptiDeviceBufferKb = 0;
  bool Quiet = false;                 // SYNCWATCH_QUIET=1: no summary on stderr
  bool Python = true;                 // SYNCWATCH_PYTHON=0: no Python call sites
  std::uint64_t IdleLaunches = 10'000;  // SYNCWATCH_IDLE_LAUNCHES (CallFilter.h)
  // SYNCWATCH_MEASURE=all: record and time every launch and copy, the fast path's filter off
  // and kernels traced from the start (CallFilter.h setMeasureAll); all:SECONDS for the first
  // SECONDS of the run only. MeasureForNs 0: the whole run.
  bool MeasureAll = false;
  std::uint64_t MeasureForNs = 0;
  // SYNCWATCH_STEP=NAME: the program's steps are the NVTX ranges of that name (a glob: "step
  // *"), pushed and popped or started and ended; the report gives what each step lost
  // (figures steps.*) and `syncwatch gate --budget-ms-per-step` holds it.
  std::string StepName;
  // SYNCWATCH_STEP=@loop: no marks; capture readiness judges the loop the calls repeat
  // (engine/LoopSteps.h). With SYNCWATCH_MEASURE=all, so that every call is recorded.
  bool DetectLoops = false;
  // SYNCWATCH_SHARE_CUPTI=0: a profiler that subscribes after syncwatch is refused by CUPTI
  // (as before cupti/CuptiSharing.h) instead of sharing the subscription.
  bool ShareCupti = true;
  // SYNCWATCH_MEASURE=steps: as all, but only while a step is open (it needs SYNCWATCH_STEP).
  bool MeasureSteps = false;
  bool TorchStreams = true;           // SYNCWATCH_TORCH_STREAMS=0: never read PyTorch's current stream
  bool Stats = false;                 // SYNCWATCH_STATS=1: syncwatch's own work, on stderr at exit
  // SYNCWATCH_BENCH_TOGGLE=1: the program may switch syncwatch off and on (the exported
  // syncwatch_set_active), to time the same steps with and without it in one process
  // (bench/train_loop.py toggle). No report is written: calls made while off were not seen.
  bool BenchToggle = false;
  bool Trace = false;                 // SYNCWATCH_TRACE=1: write a Chrome/Perfetto trace
  std::size_t TraceEvents = 500'000;  // SYNCWATCH_TRACE_EVENTS: newest events kept in it
  std::string ProfilePath;            // SYNCWATCH_PROFILE: a `syncwatch calibrate` profile
  std::string SourceRoot;             // SYNCWATCH_SOURCE_ROOT: SARIF URIs relative to it
                                      // (default: the git top level of StartDir, else StartDir)
};

// Reads the environment; Messages receives one line per rejected value. Uses getenv and
// getcwd only: it runs at library load.
Config readConfig(std::string &Messages);

} // namespace syncwatch::runtime
