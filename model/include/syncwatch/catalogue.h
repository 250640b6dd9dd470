// The rule catalogue and the CUDA API catalogue, as typed read-only tables.
// The data lives in rules/rules.def and rules/cuda_api.def; this header only gives it types.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace syncwatch {

enum class Severity : std::uint8_t { Note, Warning, Error };
std::string_view severityName(Severity S);  // "note" / "warning" / "error"
std::optional<Severity> parseSeverity(std::string_view Name);

enum class RuleId : std::uint8_t {
#define SYNCWATCH_RULE(Enum, Id, Sev, Prefix, Runtime, Calibration, Confirm, Summary, Help) Enum,
#include "../../../rules/rules.def"
#undef SYNCWATCH_RULE
};

// The runtime detector's pass that reports a rule (rules.def's Runtime column; the passes
// are rows of runtime_passes.def, run in that order).
enum class RuntimePass : std::uint8_t {
  None,
#define SYNCWATCH_RUNTIME_PASS(Name, Summary) Name,
#include "../../../rules/runtime_passes.def"
#undef SYNCWATCH_RUNTIME_PASS
};
struct RuntimePassInfo {
  RuntimePass Pass;
  std::string_view Name, Summary;
};
std::span<const RuntimePassInfo> allRuntimePasses();  // in run order, None excluded

// What a calibration profile decides of a rule's findings (rules.def's Calibration column).
enum class CalibrationUse : std::uint8_t { None, LegacyWait, HostBlock, HostBlockBehindStreams };
// How the runtime's findings of a rule are read against static results and across runs
// (rules.def's Confirm column).
enum class ConfirmUse : std::uint8_t { Time, Count, AnyApi, Notes };

struct RuleInfo {
  RuleId Rule;
  std::string_view Id;
  Severity DefaultSeverity;
  std::string_view Summary;
  std::string_view Help;
  std::string_view TestPrefix;  // test_inputs/static/<prefix>_{pos,neg}_*.cu; "" runtime only
  RuntimePass Pass = RuntimePass::None;  // the runtime pass that reports it
  CalibrationUse Calibration = CalibrationUse::None;
  ConfirmUse Confirm = ConfirmUse::Time;
  // libsyncwatch reports it, with what it cost: a pass is named.
  constexpr bool runtimeReports() const { return Pass != RuntimePass::None; }
};

std::span<const RuleInfo> allRules();
const RuleInfo &ruleInfo(RuleId Rule);
const RuleInfo *findRule(std::string_view Id);
// The rule's catalogue columns by id, for a finding (an unknown id: the defaults).
CalibrationUse calibrationUse(std::string_view Id);
ConfirmUse confirmUse(std::string_view Id);

enum class ApiLayer : std::uint8_t { Runtime, Driver };

enum class ApiFamily : std::uint8_t {
  Copy, Memset,
  DeviceAlloc, DeviceFree, HostAlloc, HostFree, HostRegister, HostUnregister, ManagedAlloc,
  StreamOrderedAlloc, StreamOrderedFree,
  DeviceSync, StreamSync, EventSync, StreamWaitEvent, StreamQuery, EventQuery, EventRecord,
  StreamCreate, DeviceConfig, CacheConfig, Launch,
  GraphLaunch,  // an instantiated CUDA graph launched into a stream (its kernels run there)
  Capture,      // begins or ends the capture of a stream into a CUDA graph
};

// What a call does while a stream is being captured into a CUDA graph (cuda_api.def's
// Capture column; the CUDA Programming Guide's "Prohibited and Unhandled Operations").
enum class CaptureUse : std::uint8_t {
  Allowed,    // host-side only: a capture does not see it
  Recorded,   // stream work: a node of the graph on the capturing stream (legacy-stream work
              // breaks the capture of a blocking stream; a pageable copy is captured, measured)
  Conflicts,  // waits for or queries GPU work or the device, or uses the legacy stream
              // synchronously: breaks the capture whatever its mode
  Unsafe,     // "potentially unsafe" (allocation, pinning, freeing): breaks a global or
              // thread-local capture; a relaxed one tolerates it
  Begins,     // begins a capture of its stream, in the mode its argument gives
  Ends,       // ends the capture of its stream
  SetsMode,   // swaps the calling thread's capture mode (cudaThreadExchangeStreamCaptureMode):
              // a relaxed one lets that thread make potentially unsafe calls
};

// cudaStreamCaptureMode, as both halves name a capture's mode (the analyzer reads it from the
// source, the runtime from the call): CUDA's numbers, and Unknown where it cannot be read.
enum class CaptureMode : std::uint8_t { Global = 0, ThreadLocal = 1, Relaxed = 2, Unknown = 255 };
const char *captureModeName(CaptureMode M);  // "global", "thread-local", "relaxed", "unknown"

// What a call puts into a stream (cuda_api.def's Issues column).
enum class IssuedWork : std::uint8_t {
  None,       // nothing: host-side calls, configuration, waits
  Gpu,        // GPU work (kernel, copy, memset) that may run on after the call returns
  GpuWaited,  // GPU work the call waits for before it returns (synchronous copies)
  Ordered,    // an allocation or free ordered in its stream (cudaMallocAsync): no GPU record
  EventMark,  // records an event after its stream's earlier work
  EventWait,  // makes its stream wait for an event
};

// What is finished when a call returns (cuda_api.def's Drains column).
enum class Drain : std::uint8_t {
  None,
  Device,            // every stream: the host waits until the device is idle (measured)
  Stream,            // the stream it is given
  Event,             // the work its event was recorded after
  DefaultStream,     // the legacy stream, which waits for every blocking stream
  StreamWhenPolled,  // its stream, when a loop polls it until done (cudaStreamQuery)
  EventWhenPolled,   // its event's work, when a loop polls it until done (cudaEventQuery)
};

// Direction of a copy: fixed by the API, or read from its cudaMemcpyKind argument, or
// decided by the pointers themselves (unified addressing), or hidden in a parameter struct.
enum class CopyDirection : std::uint8_t { None, HtoD, DtoH, DtoD, ByKind, ByPointer, Peer, InStruct };

// What NVIDIA's documentation says the call does to concurrency.
enum class DocumentedSync : std::uint8_t {
  NotDocumented,
  StreamOrdered,          // ordered in its stream, asynchronous to the host
  AsyncUnlessPageable,    // asynchronous only with pinned host memory
  LegacyStream,           // runs on the legacy default stream
  LegacyStreamHostWait,   // runs on the legacy default stream and returns when done
  DeviceWide,             // listed as an implicit synchronization of the device
  ExplicitHostWait,       // an explicit synchronization: the host waits by design
  CreatesBlockingStream,  // the created stream synchronizes with the legacy stream
};

// What was measured on our H200 (docs/measured-behaviour.md).
enum class MeasuredSync : std::uint8_t {
  NotMeasured,
  ReturnsAtOnce,               // did not wait for unrelated GPU work
  BlocksDevice,                // host waited until every stream was idle
  BlocksBehindBlockingStreams, // host waited for work in blocking streams (legacy stream)
  PageableNotAsync,            // pageable HtoD: host staging copy; DtoH: host waits
  ExplicitWait,                // waits by design for what it names
};

enum class Evidence : std::uint8_t { None, Documented, Inferred, Measured };

struct ApiInfo {
  std::string_view Name;
  ApiLayer Layer;
  ApiFamily Family;
  IssuedWork Issues;
  Drain Drains;
  int StreamArg;        // -1: none
  bool StreamDefaulted; // the header declares a default (the legacy stream)
  int FlagsArg;         // stream-creation flags, -1: none
  int DstArg, SrcArg;   // pointer arguments that may be host memory, -1: none
  int KindArg;          // cudaMemcpyKind argument, -1: none
  int BytesArg;         // byte count, -1: none
  CopyDirection Direction;
  DocumentedSync Documented;
  MeasuredSync Measured;
  Evidence Proof;
  RuleId Rule;
  Severity RuleSeverity;
  std::string_view Fix;
  CaptureUse Capture;

  // Work that goes to the legacy default stream although the call names no stream:
  // synchronous copies and memsets.
  bool issuesOnLegacyStream() const {
    return StreamArg < 0 && (Family == ApiFamily::Copy || Family == ApiFamily::Memset);
  }
  bool takesStream() const { return StreamArg >= 0; }
  // Work that may still run on the GPU after the call returns (the analyzer's work items).
  bool leavesWorkRunning() const { return Issues == IssuedWork::Gpu || Issues == IssuedWork::Ordered; }
  // Work that CUPTI records as a kernel, memcpy or memset of this call.
  bool hasGpuRecord() const { return Issues == IssuedWork::Gpu || Issues == IssuedWork::GpuWaited; }
};

// Whether a call can block the host, in NVIDIA's words and as measured. A call that was
// not measured may wait (both halves then judge it by what they observe).
enum class CanWait : std::uint8_t { No, Yes, Unknown };
CanWait documentedWait(const ApiInfo &A);
CanWait measuredWait(const ApiInfo &A);
// The one answer both halves use: measured, else documented, else "may".
bool mayWait(const ApiInfo &A);

std::span<const ApiInfo> allApis();

// Maps a spelling as the compiler or CUPTI sees it to the catalogue's base name:
// strips per-thread suffixes (_ptsz, _ptds), driver ABI versions (_v2, _v3) and CUPTI's
// version tags (_v3020, _v7000). Returns the input if nothing applies.
std::string_view canonicalApiName(std::string_view Spelled);

// Lookup by any spelling; nullptr for APIs the catalogue does not know.
const ApiInfo *findApi(std::string_view Spelled);


// cudaMemcpyKind's values (driver_types.h), for reading a copy's direction.
enum class MemcpyKind : std::int64_t {
  HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3, Default = 4
};

// Pageable host-to-device copies of at most this many bytes are staged by the driver and
// return at once (measured: 4 KB pageable cudaMemcpyAsync HtoD took 0.02 ms on an H200;
// NVIDIA documents 64 KB as the limit).
inline constexpr std::uint64_t kStagedCopyLimit = 64 * 1024;

// Calls that put something into the stream they name (as opposed to waiting for it or
// configuring): Issues is not None and the call takes a stream (a launch names it in its
// config).
bool issuesStreamWork(const ApiInfo &A);
// Explicit host waits (documented as such): cudaDeviceSynchronize, cudaStreamSynchronize,
// cudaEventSynchronize.
bool isExplicitSync(const ApiInfo &A);

// The Async counterpart of a synchronous call (cudaMemcpy -> cudaMemcpyAsync), or nullptr.
const ApiInfo *asyncCounterpart(const ApiInfo &A);

// Stream creation flags: cudaStreamNonBlocking and CU_STREAM_NON_BLOCKING are both bit 0.
inline constexpr std::uint64_t kNonBlockingStreamFlag = 0x1;

std::string_view documentedSyncText(DocumentedSync D);
std::string_view measuredSyncText(MeasuredSync M);
std::string_view evidenceName(Evidence E);

} // namespace syncwatch
