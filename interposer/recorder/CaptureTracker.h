// The graph captures open now, followed live: a capture's begin and end, and the calls that
// fail with a capture error (cudaErrorStreamCapture*, cudaErrorCapturedEvent) while it is
// open. Each such call gets a CaptureNote (events/CaptureNote.h) that ties it to its capture,
// so that a recording or a report can name the call that broke a capture, its thread and
// the thread and line that began the capture, whichever windows the calls land in.
//
// Which capture a failing call broke: the capture its own thread began, else the only one
// open, else the oldest global-mode one (a global capture is broken by another thread's
// potentially unsafe call: docs/measured-behaviour.md "Stream capture"), else the oldest.
// These calls are rare (a program captures a graph once per shape); a mutex is enough.
#pragma once

#include "../events/CaptureNote.h"

#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace syncwatch::runtime {

class CaptureTracker {
public:
  // Each returns the note of the call (its number: internCaptureNote; 0 none).
  // A capture began: its Begin note. Opened: it is the only capture open now.
  std::uint32_t began(const void *Handle, std::uint32_t Stream, CaptureMode Mode, std::uint64_t Thread,
                           std::uint32_t Site, bool &Opened);
  // The capture of Handle's stream ended (Result: what the end returned; Nodes: its graph's);
  // none for a successful end of a capture syncwatch did not see begin.
  // Closed: no capture is open now. An end that failed with cudaErrorStreamCaptureWrongThread
  // left the capture open.
  std::uint32_t ended(const void *Handle, std::int32_t Result, std::uint32_t Nodes, bool &Closed);
  // A call returned a capture error: the note of the capture it broke (Breaks) or failed in
  // after another call broke it (After); with no capture known open, a note of its error alone.
  std::uint32_t failed(std::uint64_t Thread, std::string_view Api, std::int32_t Error, std::uint32_t Site);

  std::size_t open() const;

private:
  static std::uint32_t orphan(std::int32_t Error);
  struct Open {
    const void *Handle;
    CaptureNote Note;  // its Begin note, with the first break once there is one
  };
  mutable std::mutex M;
  std::vector<Open> Captures;  // oldest first
};

} // namespace syncwatch::runtime
