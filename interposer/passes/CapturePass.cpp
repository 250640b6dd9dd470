#include "CapturePass.h"

#include <algorithm>

namespace syncwatch::runtime {

namespace {

// What an error means to the capture, in a few words (the CUDA Programming Guide's, and
// docs/measured-behaviour.md "Stream capture" for which calls give which).
std::string errorMeaning(std::int32_t Error) {
  switch (Error) {
  case 900: return "the call is not permitted while a stream is captured";
  case 901: return "the capture had already been invalidated";
  case 902: return "the capture would merge two independent captures";
  case 903: return "the capture was not begun in this stream";
  case 904: return "a stream forked from the capture was not joined back before its end";
  case 905: return "the call waited for work from outside the capture";
  case 906: return "the call used the legacy stream, which a blocking stream's capture waits for";
  case 907: return "the call queried or waited for an event recorded in the capture";
  case 908: return "the capture was ended by another thread than the one that began it";
  default: return "";
  }
}

// A torch message's reason alone: its first line, without the ". Found from : " that a
// mutation's or a CPU tensor's stack trace follows (the finding's evidence keeps it whole).
std::string firstLine(const std::string &S) {
  std::string Line = S.substr(0, std::min(S.find('\n'), S.find(". Found from")));
  while (!Line.empty() && (Line.back() == '.' || Line.back() == ' '))
    Line.pop_back();
  return Line;
}

std::string stream(const CaptureNote &N, const std::map<std::uint32_t, StreamInfo> &Streams) {
  return N.Stream == ApiCall::kUnknownStream ? "a stream" : streamLabel(N.Stream, Streams);
}

} // namespace

void CapturePass::run(const PassContext &Ctx, FindingSink &Sink) const {
  const EventLog &W = Ctx.Window;
  for (std::size_t N = 0; N < Ctx.Index.InScope; ++N) {
    const ApiCall &C = W.Calls[N];
    if (!C.CaptureNumber)
      continue;
    const CaptureNote *Full = C.capture();
    if (Full && Full->torch()) {
      // torch.compile's own reason, at the line that called the compiled function.
      SiteAggregate &A = Sink.record(RuleId::CaptureBreakingCall, C, 0, firstLine(Full->Reason));
      if (!A.Capture)
        A.Capture = Full;
      continue;
    }
    if (!Full || !Full->Error)
      continue;
    std::int32_t Error = Full->Error;
    bool Breaks = Full->What == CaptureNote::Role::Breaks;
    const CaptureNote *Note = Full->knownCapture() ? Full : nullptr;
    // The end of a capture that failed with nothing seen breaking it (an unjoined fork): the
    // end is the line to look at. One broken by a call is that call's finding.
    bool EndAlone = Note && Note->What == CaptureNote::Role::End && !Note->broken();
    if (!Breaks && !EndAlone)
      continue;
    std::string Cause = "it returned " + cudaErrorName(Error);
    if (std::string Why = errorMeaning(Error); !Why.empty())
      Cause += " (" + Why + ")";
    if (Note)
      Cause += Breaks ? " during the " + std::string(captureModeName(Note->Mode)) + "-mode capture of " +
                            stream(*Note, Ctx.Streams) + "; the capture is invalidated and its end returns no graph"
                      : ": the " + std::string(captureModeName(Note->Mode)) + "-mode capture of " +
                            stream(*Note, Ctx.Streams) + " made no graph";
    else
      Cause += " with no capture begun that syncwatch saw";
    SiteAggregate &A = Sink.record(RuleId::CaptureBreakingCall, C, C.duration(), Cause);
    if (Note && !A.Capture)
      A.Capture = Note;  // the first one (the example's)
    A.CaptureOtherThread += Note && Note->Thread != C.Thread;
  }
}

} // namespace syncwatch::runtime
