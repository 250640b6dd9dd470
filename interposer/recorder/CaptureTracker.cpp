#include "CaptureTracker.h"

#include <algorithm>

namespace syncwatch::runtime {

std::uint32_t CaptureTracker::began(const void *Handle, std::uint32_t Stream, CaptureMode Mode,
                                         std::uint64_t Thread, std::uint32_t Site, bool &Opened) {
  CaptureNote N;
  N.What = CaptureNote::Role::Begin;
  N.Thread = Thread;
  N.Stream = Stream;
  N.Mode = Mode;
  N.BeginSite = Site;
  std::lock_guard<std::mutex> L(M);
  // A stream's handle can be captured once at a time: one still listed was ended by a call
  // syncwatch did not see.
  Captures.erase(std::remove_if(Captures.begin(), Captures.end(), [&](const Open &O) { return O.Handle == Handle; }),
                 Captures.end());
  Captures.push_back({Handle, N});
  Opened = Captures.size() == 1;
  return internCaptureNote(N);
}

std::uint32_t CaptureTracker::ended(const void *Handle, std::int32_t Result, std::uint32_t Nodes, bool &Closed) {
  std::lock_guard<std::mutex> L(M);
  Closed = false;
  auto It = std::find_if(Captures.begin(), Captures.end(), [&](const Open &O) { return O.Handle == Handle; });
  if (It == Captures.end())  // begun before syncwatch saw it, or not a capture at all
    return isCaptureError(Result) ? orphan(Result) : 0;
  CaptureNote N = It->Note;
  N.What = CaptureNote::Role::End;
  N.Error = Result;
  N.Nodes = Nodes;
  if (Result != 908) {  // cudaErrorStreamCaptureWrongThread: still capturing
    Captures.erase(It);
    Closed = Captures.empty();
  }
  return internCaptureNote(N);
}

std::uint32_t CaptureTracker::failed(std::uint64_t Thread, std::string_view Api, std::int32_t Error,
                                          std::uint32_t Site) {
  std::lock_guard<std::mutex> L(M);
  if (Captures.empty())
    return orphan(Error);
  auto Own = std::find_if(Captures.begin(), Captures.end(), [&](const Open &O) { return O.Note.Thread == Thread; });
  auto Global = std::find_if(Captures.begin(), Captures.end(),
                             [](const Open &O) { return O.Note.Mode == CaptureMode::Global; });
  Open &Broken = Own != Captures.end() ? *Own : Global != Captures.end() ? *Global : Captures.front();
  CaptureNote &C = Broken.Note;
  CaptureNote N = C;
  N.Error = Error;
  if (!C.broken()) {
    C.BreakSite = Site;
    C.BreakThread = Thread;
    C.BreakApi = Api;
    C.BreakError = Error;
    N = C;
    N.Error = Error;
    N.What = CaptureNote::Role::Breaks;
  } else {
    N.What = CaptureNote::Role::After;
  }
  return internCaptureNote(N);
}

std::uint32_t CaptureTracker::orphan(std::int32_t Error) {
  CaptureNote N;
  N.What = CaptureNote::Role::Breaks;
  N.Error = Error;
  return internCaptureNote(N);
}

std::size_t CaptureTracker::open() const {
  std::lock_guard<std::mutex> L(M);
  return Captures.size();
}

} // namespace syncwatch::runtime
