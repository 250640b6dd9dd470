// Decides, at a call's entry, whether it can matter to any rule and whether kernel
// activity must be traced from now on. A call that cannot matter is not recorded at all -
// no stack, no timestamps, no lock - which is what keeps launch-bound programs near the
// floor of a bare CUPTI subscriber (bench/runtime_overhead.sh).
#pragma once

#include "ApiCallback.h"

#include <string_view>

namespace syncwatch {
struct ApiInfo;
}

namespace syncwatch::runtime {

// What syncwatch knows about one enabled callback id, from the catalogue.
struct CallbackInfo {
  std::string_view Name;           // "" for ids syncwatch does not enable
  bool Launch = false;             // a kernel launch
  bool ReleasesHostMemory = false; // cudaFreeHost, cudaHostUnregister...: pinned may become pageable
  bool CreatesStream = false;      // a new stream may reuse a destroyed one's handle
  bool CanWait = false;            // mayWait(): measured, else documented, to block the host
  bool IssuesWork = false;         // copies, memsets, launches...: judged later by their GPU
                                   // records (pageable memory, serialization) whatever their host time
  CaptureCall Capture = CaptureCall::None;  // begins or ends a graph capture (set per entry point)
};

// What the catalogue says of an API, as the filter needs it (cupti/Subscriber.cpp for each enabled
// callback id, bench/runtime_cost for its synthetic ones).
CallbackInfo callbackInfoOf(const ApiInfo &Api);

// The driver queries the filter asks (looked up, not linked: libsyncwatch.so must
// load where there is no driver). Without them nothing is filtered.
struct DriverQueries {
  int (*StreamGetFlags)(const void *Stream, unsigned *Flags) = nullptr;
  int (*StreamGetPriority)(const void *Stream, int *Priority) = nullptr;
  int (*PointerGetAttribute)(void *Value, int Attribute, unsigned long long Pointer) = nullptr;
  int (*CtxGetDevice)(int *Device) = nullptr;  // the current context's device (TorchStreams.h)
  // cuStreamIsCapturing: the one stream query that is legal while the stream is captured
  // (Status: 0 none, 1 active, 2 invalidated).
  int (*StreamIsCapturing)(const void *Stream, int *Status) = nullptr;
};
void bindDriver(void *DriverHandle);
void bindDriverQueries(const DriverQueries &Queries);  // tests bind fakes

struct EntryDecision {
  bool Record = true;          // false: the call cannot matter: it is only counted at its site
  bool TraceKernels = false;   // kernel activity is needed from this call on
  bool EnableLaunches = false; // launches can matter from now on: turn their callbacks on
  bool DisableLaunches = false;  // they could not, for a long while: turn them off again
  // A launch onto a default stream while PyTorch's current stream on this thread was
  // another (TorchStreams.h): CurrentStream is that stream's handle.
  bool OffTorchStream = false;
  const void *CurrentStream = nullptr;
  // (Record false) what the filter read decides the call harmless - a non-blocking stream of
  // the default priority, pinned host memory - rather than leaving it untimed (a launch onto
  // the legacy stream before any blocking-stream work: its kernel is not traced).
  bool Judged = false;
};

// SYNCWATCH_TORCH_STREAMS=0: never read PyTorch's current stream.
void setTorchStreamChecks(bool On);

// Launch callbacks turned on by a blocking stream's creation go off again after this many
// launches (on one thread) in which no work went to a blocking stream and no high-priority
// stream exists: cuBLAS creates a blocking stream in PyTorch's first matmul and never uses
// it, and a PyTorch training loop would otherwise pay CUPTI's per-launch cost (+20% on
// bench/train_loop.py on an H200) for nothing. What this misses: a blocking stream first
// used after that many launches, until another one is created or a copy goes to it.
constexpr unsigned kIdleLaunchesBeforeOff = 10'000;
// SYNCWATCH_IDLE_LAUNCHES overrides it (bench/runtime_overhead.sh measures the trade).
// Launch callbacks are on from the start, so that every launch site that runs is counted;
// the count of idle launches starts again at each launch from a site not seen before, so
// they go off only once a program's launch sites have all been seen for that long (a
// training loop's first steps), and the recording says when (EventLog's L records).
void setIdleLaunchesBeforeOff(unsigned Launches);
// A launch the filter did not record came from a site not seen before.
void noteNewLaunchSite();
// SYNCWATCH_MEASURE=all: nothing is filtered - every launch and copy is recorded, and its
// kernel traced - until it is turned off again (the end of an all:SECONDS window). What a
// user pays for every line of the run being timed (confirm's not-measured lines decided).
void setMeasureAll(bool On);

// Kernel launches, by where they go:
//  - a non-blocking stream of the default priority: never recorded (nothing waits for it
//    implicitly, and it is nobody's priority inversion);
//  - a high-priority stream: recorded, kernels traced (the priority-inversion rule);
//  - a blocking stream, cudaStreamPerThread, or the per-thread default stream of a
//    --default-stream per-thread build: recorded, kernels traced, and from then on...
//  - the legacy default stream: recorded only once work (a launch or an async copy) has
//    gone to a blocking stream. Before that nothing can hold it or be held by it, and
//    PyTorch - which launches everything onto the legacy stream and uses only
//    non-blocking streams of its own - pays for none of its launches;
//  - a launch whose stream cannot be read (graphs, cooperative launches): recorded, traced;
//  - in a PyTorch process that has non-blocking streams (torch.cuda.Stream(), pool streams,
//    an ExternalStream), a launch onto the legacy stream or the per-thread default stream is
//    checked against PyTorch's current stream (TorchStreams.h) and, where that was another,
//    recorded with it (OffTorchStream) and kernels traced. Launch callbacks then stay on:
//    PyTorch's pool holds high-priority streams, which keep them on already.
//    What this misses: a blocking stream passed to PyTorch as an ExternalStream (then the
//    launch serializes with it instead, which syncwatch-default-stream reports).
// Creating a stream of higher than default priority turns kernel tracing on: the work
// its kernels will wait behind is issued before them, so must be traced from before.
// What this misses: a legacy-stream kernel issued before any blocking-stream work and
// still running when the first one is launched is not traced, so that first serialization
// goes unreported (a loop's later iterations are reported).
// cudaMemcpyAsync between device and PINNED host memory on a non-blocking stream is not
// recorded either (a pageable one is exactly what the pageable-async-copy rule is about).
EntryDecision decideAtEntry(const ApiCallback &Call, const CallbackInfo &Info);

// Forget everything learned (tests; one process runs several scenarios).
void resetCallFilter();

} // namespace syncwatch::runtime
