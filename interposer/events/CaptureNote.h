// A call's part in a CUDA graph capture (cudaStreamBeginCapture .. cudaStreamEndCapture), as
// the recorder followed it while the program ran (recorder/CaptureTracker.h): only it sees
// every thread's calls in the order they happened, so it ties a failing call to the capture
// it broke then, and a recording keeps that tie. No CUDA here: the engine reads it in CI.
//
// In a recording it is two optional fields of the C record (EventLog.h): err=N, the call's own
// error, and (but for an error with no capture known)
//   capture=ROLE,THREAD,STREAM,MODE,BEGIN_SITE,NODES,BREAK_SITE,BREAK_THREAD,BREAK_API,BREAK_ERROR
// ROLE begin|end|breaks|after; THREAD the capturing thread; STREAM the captured stream (CUPTI
// id, ? unknown); MODE global|thread-local|relaxed|?; BEGIN_SITE the site of the call that
// began it; NODES the graph's node count (an end that made a graph); BREAK_* the first call
// that broke the capture (0,0,-,0: none seen). The torch roles (torch-skip|torch-hint) add an
// eleventh field, REASON, with '%', ',', tabs, newlines and other controls %-escaped.
#pragma once

#include "syncwatch/catalogue.h"  // CaptureMode

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncwatch::runtime {

struct CaptureNote {
  enum class Role : std::uint8_t {
    Begin,   // the call that began the capture
    End,     // the call that ended it (its error, if any, is the call's own)
    Breaks,  // the first call that failed with a capture error while it was open
    After,   // a later call that failed in the broken capture (a consequence, not a cause)
    // torch.compile(mode="reduce-overhead")'s own word on its CUDA graphs (sites/TorchGraphHints.h),
    // on a record of its own (api "torch.compile") at the user's Python line; Reason is torch's.
    TorchSkip,  // the compiled graph runs without a CUDA graph
    TorchHint,  // graphs are used at a cost (re-recorded per input size, ...)
  };
  Role What = Role::Begin;
  std::int32_t Error = 0;    // what the call itself returned (0: success)
  std::uint64_t Thread = 0;  // the thread that began the capture (0: no capture known - a
                             // capture error with no capture seen open)
  std::uint32_t Stream = UINT32_MAX;
  CaptureMode Mode = CaptureMode::Unknown;
  std::uint32_t BeginSite = 0;
  std::uint32_t Nodes = 0;
  std::uint32_t BreakSite = 0;  // End, After: the first call that broke the capture
  std::uint64_t BreakThread = 0;
  std::string_view BreakApi;    // (interned: internApiName)
  std::int32_t BreakError = 0;
  std::string Reason;  // TorchSkip, TorchHint: torch's message

  bool torch() const { return What == Role::TorchSkip || What == Role::TorchHint; }
  bool broken() const { return BreakError != 0; }
  bool knownCapture() const { return Thread != 0; }
};

// A stable copy of a note, by its number (1-based; 0: none): what rings, recordings' calls and
// the engine's calls keep of it. Captures are few; past kMaxCaptureNotes a call has none (0).
constexpr std::size_t kMaxCaptureNotes = 1 << 16;
std::uint32_t internCaptureNote(const CaptureNote &N);
const CaptureNote *captureNoteOf(std::uint32_t Number);  // never moves; null for 0

std::string captureNoteText(const CaptureNote &N);  // the part after "capture="
std::optional<CaptureNote> readCaptureNote(std::string_view Text);

// The CUDA errors a capture gives (cudaErrorStreamCaptureUnsupported 900 .. WrongThread 908;
// the driver's CUresult numbers are the same), and any error's runtime name where known.
constexpr bool isCaptureError(std::int32_t E) { return E >= 900 && E <= 908; }
std::string cudaErrorName(std::int32_t E);  // "cudaErrorStreamCaptureInvalidated", "error 2"

} // namespace syncwatch::runtime
