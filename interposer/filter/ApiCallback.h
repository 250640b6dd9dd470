// One CUDA API call as the runtime half sees it, in syncwatch's own terms. cupti/ is the only
// code that knows CUPTI's callback data: it decodes each callback into an ApiCallback
// (cupti/CallDecoding.h), and everything below - the filter, the handlers, the recorder,
// the self statistics - reads this instead.
#pragma once

#include <cstdint>

namespace syncwatch::runtime {

// The API table a callback comes from. The values are CUPTI's domain numbers, so that a
// CallbackKey is the same number CUPTI would give (cupti/CallDecoding.cpp checks it): site
// keys and the self statistics' rows stay what they were.
enum class ApiDomain : std::uint32_t { Driver = 1, Runtime = 2 };

// A callback's key: (domain << 16) | its index in that domain's table.
using CallbackKey = std::uint32_t;
constexpr CallbackKey callbackKey(ApiDomain Domain, std::uint32_t Index) {
  return static_cast<std::uint32_t>(Domain) << 16 | Index;
}
constexpr ApiDomain domainOf(CallbackKey Key) { return static_cast<ApiDomain>(Key >> 16); }
constexpr std::uint32_t indexOf(CallbackKey Key) { return Key & 0xffff; }

// What the filter reads of a call's arguments (decoded at the call's entry only).
struct CallArgs {
  bool HasParams = false;     // the call's parameters were there to read
  // Launches and cudaMemcpyAsync: the stream the work goes to.
  bool StreamKnown = false;   // false: a launch whose stream cannot be read (graphs, cooperative launches)
  bool PerThreadApi = false;  // a _ptsz entry point: the handle 0 is the per-thread default stream
  // A capture's begin: its mode (cudaStreamCaptureMode; 255 when the entry point has none);
  // Stream is the stream it captures. A capture's end: Stream. (In the padding: CallArgs
  // stays 48 bytes, so that zeroing an ApiCallback stays a few stores, not a rep stos -
  // bench/runtime_cost.sh measured that at 20 ns a call.)
  std::uint8_t CaptureMode = 255;
  const void *Stream = nullptr;
  // Stream creation: its flags and priority (lower is more urgent, 0 the default).
  unsigned StreamFlags = 0;
  int StreamPriority = 0;
  // cudaMemcpyAsync (the runtime's, either entry point): direction and host pointers.
  bool AsyncCopy = false;
  int CopyKind = 0;           // cudaMemcpyKind: 1 host to device, 2 device to host
  const void *Src = nullptr, *Dst = nullptr;
};
static_assert(sizeof(CallArgs) <= 48, "see CaptureMode");

// The capture entry points, whose arguments sit in different places (cupti/CallDecoding.h).
enum class CaptureCall : std::uint8_t {
  None,
  Begin,         // cudaStreamBeginCapture, cuStreamBeginCapture_v2: (stream, mode)
  BeginNoMode,   // cuStreamBeginCapture (the first one): (stream)
  BeginToGraph,  // cudaStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph: mode last
  End,           // cudaStreamEndCapture, cuStreamEndCapture: (stream, graph*)
};
constexpr bool beginsCapture(CaptureCall C) { return C != CaptureCall::None && C != CaptureCall::End; }
constexpr int kCopyHostToDevice = 1;  // cudaMemcpyHostToDevice
constexpr int kCopyDeviceToHost = 2;  // cudaMemcpyDeviceToHost

struct ApiCallback {
  CallbackKey Key = 0;
  const void *Context = nullptr;       // the CUDA context the call runs in
  std::uint32_t Correlation = 0;       // pairs the call with its GPU records
  const char *FunctionName = nullptr;  // the API's name as the runtime gave it
  CallArgs Args;
};

// A call at its exit: no arguments, but what it returned.
struct ApiReturn {
  CallbackKey Key = 0;
  // What the call returned (cudaError_t or CUresult: the capture errors have the same numbers
  // in both). In the padding after Key.
  std::int32_t Result = 0;
  const void *Context = nullptr;
  std::uint32_t Correlation = 0;
  const char *FunctionName = nullptr;
  const void *Graph = nullptr;  // the graph a capture's end made (null: none)
};

} // namespace syncwatch::runtime
