// The runtime half's event stream: what capture records and the engine reads. No CUDA or
// CUPTI here, so the engine runs in CI on recorded streams (test_inputs/runtime/*.swrec).
//
// Text format, one record per line, tab-separated ("# syncwatch-events 1" first):
//   S  stream  flag(legacy|blocking|nonblocking|unknown)  priority
//   C  correlation  thread  api  enter_ns  exit_ns  site  [ctx]  [torch=stream|torch=?]
//      [err=N]  [capture=...]
//                      (ctx: the call created the CUDA context; its time is start-up;
//                       torch=: a launch onto a default stream while PyTorch's current
//                       stream was that one - ? when CUPTI could not name it;
//                       err=: the CUDA error the call returned - a capture error (900-908)
//                       or a capture's end; capture=: its part in a graph capture,
//                       CaptureNote.h. A call recorded only for its error has enter = exit)
//   K  correlation  stream  start_ns  end_ns  name
//   M  correlation  stream  start_ns  end_ns  bytes  copy_kind  src_kind  dst_kind  async(0|1)
//   Z  correlation  stream  start_ns  end_ns  bytes
//   F  site  function  file  line                      (the site's first user frame)
//   P  site  function  file  line                      (its Python frames, innermost first)
//   T  since_ns        kernel records exist only from this time on (absent: all traced;
//                      18446744073709551615: none - SYNCWATCH_KERNELS=0 or never needed)
//   N  site  api  calls  judged
//                      calls the fast path counted but did not record (CallFilter.h): of
//                      them, `judged` were decided harmless on what the filter read (a
//                      non-blocking stream, pinned memory); the rest ran untimed
//   L  off_ns  on_ns   the deferrable launch callbacks were off from off_ns to on_ns
//                      (18446744073709551615: to the end): launches then were not counted
//   V  counts          every call of a catalogued API is in a C or N record, launches
//                      outside L windows included (absent: an older recorder, which did
//                      not count what it filtered, nor launches while their callbacks were off)
//   W  thread  start_ns  end_ns  name
//                      a step the program marked: an NVTX range of the name SYNCWATCH_STEP
//                      gives (docs/runtime.md), pushed and popped (or started and ended) on
//                      that thread
//   H  thread  name    a thread's name (/proc/self/task/<tid>/comm at exit, threads still
//                      alive then); the process's main thread is the one whose id is the pid
//   I  key  value      the process: rank, worldSize, job, host, gpu, pid, commandLine
//   E  records         the last line: a recording with I records and no E, or with the
//                      header alone, was cut short (said as truncated)
// Times are CUPTI timestamps (ns). Memory kinds as CUPTI: 1 pageable, 2 pinned, 3 device.
#pragma once

#include "ApiNames.h"
#include "CaptureNote.h"
#include "ProcessIdentity.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace syncwatch::runtime {

enum class StreamFlag : std::uint8_t { Unknown, Legacy, Blocking, NonBlocking };

struct StreamInfo {
  std::uint32_t Stream = 0;
  StreamFlag Flag = StreamFlag::Unknown;
  std::int32_t Priority = 0;
};

struct ApiCall {
  std::uint32_t Correlation = 0;
  // Its part in a graph capture (CaptureNote.h): the note's number (internCaptureNote; 0:
  // none). A number, in the padding, so that every call stays 64 bytes: the engine copies
  // millions of them, and a capture's calls are a handful.
  std::uint32_t CaptureNumber = 0;
  std::uint64_t Thread = 0;
  std::string_view Api;       // canonical catalogue name (static storage: see internApiName)
  std::uint64_t Enter = 0, Exit = 0;
  std::uint32_t Site = 0;     // 0: unknown
  // The call created the CUDA context (CUPTI's resource callback fired inside it): its host
  // time is start-up - cublasCreate's cudaFree(0) took 155 ms on the H200 - not a wait.
  bool CreatedContext = false;
  // A launch onto a default stream while PyTorch's current stream on the calling thread was
  // this stream (CUPTI id; kUnknownStream when CUPTI could not name it).
  std::optional<std::uint32_t> OffTorchStream;
  static constexpr std::uint32_t kUnknownStream = UINT32_MAX;
  const CaptureNote *capture() const { return CaptureNumber ? captureNoteOf(CaptureNumber) : nullptr; }
  std::uint64_t duration() const { return Exit > Enter ? Exit - Enter : 0; }
};
static_assert(sizeof(ApiCall) <= 64, "an ApiCall is 64 bytes: see CaptureNumber");

enum class GpuKind : std::uint8_t { Kernel, Memcpy, Memset };

// CUPTI's memory kinds (CUpti_ActivityMemoryKind).
enum class MemoryKind : std::uint8_t { Unknown = 0, Pageable = 1, Pinned = 2, Device = 3 };

struct GpuWork {
  std::uint32_t Correlation = 0;
  std::uint32_t Stream = 0;
  std::uint64_t Start = 0, End = 0;
  // The kernel's name, static storage (internKernelName): a window holds tens of thousands
  // of records, and a mangled name copied into each was a heap block per kernel.
  std::string_view Name;
  std::uint64_t Bytes = 0;
  GpuKind Kind = GpuKind::Kernel;
  std::uint8_t CopyKind = 0;  // CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, ...
  MemoryKind Src = MemoryKind::Unknown, Dst = MemoryKind::Unknown;
  bool Async = false;
  std::string describe() const;  // "kernel 'spin'", "memcpy DtoH 64 MB"
};
static_assert(sizeof(GpuWork) <= 56, "a window holds tens of thousands of GpuWork records");

// Calls of one API at one site that the fast path counted without recording them.
struct CountedCalls {
  std::uint32_t Site = 0;
  std::string_view Api;          // canonical catalogue name (internApiName)
  std::uint64_t Calls = 0;
  std::uint64_t Judged = 0;      // of Calls: decided harmless at entry (CallFilter.h)
};

// A time when the deferrable launch callbacks were off (CUPTI ns; To UINT64_MAX: the end).
struct UnwatchedSpan {
  std::uint64_t From = 0, To = UINT64_MAX;
};

// A step the program marked (SYNCWATCH_STEP: an NVTX range of that name), CUPTI ns.
struct StepSpan {
  std::uint64_t Thread = 0, Start = 0, End = 0;
  std::string Name;
};

struct SourceFrame {
  std::string Function, File;
  unsigned Line = 0;
};

// A call site: the first native frame of the user's code and, in a Python process, the
// user's Python frames (innermost first) that led to it.
struct SiteFrame : SourceFrame {
  std::vector<SourceFrame> Python;
};

struct EventLog {
  std::vector<StreamInfo> Streams;
  std::vector<ApiCall> Calls;
  std::vector<GpuWork> Work;
  std::map<std::uint32_t, SiteFrame> Sites;
  // Kernel activity is traced on demand (SYNCWATCH_KERNELS=auto): before this time a wait
  // has no kernel record to name. Unset: everything traced (older recordings).
  std::optional<std::uint64_t> KernelsTracedFrom;
  // Which rank of which job recorded it (recordings made before it have none).
  ProcessIdentity Process;
  // What the fast path counted but did not record, and when launches went unseen.
  std::vector<CountedCalls> Counted;
  std::vector<UnwatchedSpan> LaunchesUnwatched;
  // The recorder counted every call (V record); false for older recordings.
  bool CountsAllCalls = false;
  // The steps the program marked (W records), in the order they ended.
  std::vector<StepSpan> Steps;
  // Threads' names (H records), by the thread id of C records.
  std::map<std::uint64_t, std::string> ThreadNames;

  const StreamInfo *stream(std::uint32_t Id) const;
};

void writeEventLog(std::ostream &Out, const EventLog &Log);

// Reads a recorded stream. Unknown record types are skipped (newer recorders); a
// malformed line is an error naming its line number and, for a number out of its field's
// range, the field; a line ending in a CR (a CRLF file) is one that says so.
struct ParseResult {
  EventLog Log;
  std::string Error;  // empty on success
};
ParseResult readEventLog(std::istream &In);

std::string_view streamFlagName(StreamFlag F);

// "nonblocking stream 13 (priority -5)", or "stream 13" when its record is missing: how every
// report, summary and trace names a stream.
std::string streamLabel(std::uint32_t Id, const std::map<std::uint32_t, StreamInfo> &Streams);

// CUPTI's copy kinds ("HtoD", ...; "" when unknown) and memory kinds ("Pageable", ...).
std::string_view copyKindName(std::uint8_t CopyKind);
std::string_view memoryKindName(MemoryKind K);

} // namespace syncwatch::runtime
