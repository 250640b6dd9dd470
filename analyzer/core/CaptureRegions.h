// Where a stream may be being captured into a CUDA graph: between cudaStreamBeginCapture (its
// ToGraph and driver forms, at::cuda::CUDAGraph::capture_begin) and the end of that capture,
// as a forward dataflow over the CFG of each function that takes part in one.
//
// A capture reaches the calls after its begin on some path (may: the union at joins) until
// the capture of its stream ends. Helpers of this unit are followed both ways: a helper that
// returns with a capture begun opens it at its call site (a beginCapture() wrapper), one that
// ends a capture ends it there (endCapture()), and a helper called while a capture may be
// active starts with that capture active (its calls are inside it, up to its own end of
// capture). The checks judge what each call does to the captures active at it
// (syncwatch-capture-breaking-call); this analysis only says where they are.
#pragma once

#include "FlowTypes.h"
#include "FunctionWork.h"

#include "clang/AST/ASTContext.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

namespace syncwatch {

// A stream this unit creates with cudaStreamNonBlocking (WorkFlow::createdNonBlocking).
using NonBlockingStreams = std::function<bool(const clang::Decl *)>;

// A capture's mode (syncwatch/catalogue.h's CaptureMode) says what it forbids: in global mode
// "potentially unsafe" calls fail in any thread, in thread-local mode in the capturing thread;
// relaxed allows them, and calls that conflict with any capture still fail
// (docs/rules/syncwatch-capture-breaking-call.md). Unknown: the mode argument is not a constant.

struct ActiveCapture {
  const clang::CallExpr *Begin = nullptr;  // cudaStreamBeginCapture, capture_begin, or an opening helper's call
  clang::SourceLocation BeginLoc;          // where the user sees it begin (in its own function)
  Queue Stream;                            // the capturing stream, as the source names it
  CaptureMode Mode = CaptureMode::Global;
  // Legacy-stream work does not join this capture: its stream was created cudaStreamNonBlocking
  // in this unit, or it is PyTorch's capture stream (a pool stream, non-blocking).
  bool NonBlocking = false;
  bool Torch = false;                      // at::cuda::CUDAGraph::capture_begin
  // The call of this function, in a caller, through which the capture reaches it (nullptr:
  // it began in this function).
  const clang::CallExpr *Via = nullptr;
  clang::SourceLocation ViaLoc;
  // The first of those calls: the one in the function that began the capture (Via itself
  // after one hop). Not part of the capture's identity.
  const clang::CallExpr *FirstVia = nullptr;

  bool operator<(const ActiveCapture &O) const {
    return Begin != O.Begin ? Begin < O.Begin : Via < O.Via;
  }
  bool operator==(const ActiveCapture &O) const { return Begin == O.Begin && Via == O.Via; }
};

class CaptureRegions {
public:
  CaptureRegions(const std::vector<FunctionCalls> &Functions, NonBlockingStreams CreatedNonBlocking,
                 clang::ASTContext &Ctx);
  // The captures that may be active when Call starts; empty outside every capture.
  const std::vector<ActiveCapture> &at(const WorkCall &Call) const;
  // The unit begins a capture somewhere (nothing else is computed when it does not).
  bool any() const { return Any; }
  // The calling thread's own capture mode is relaxed at Call: it pushed relaxed mode before
  // it (cudaThreadExchangeStreamCaptureMode with a variable set to relaxed, PyTorch's
  // CUDAStreamCaptureModeGuard) and has not popped it yet, in this function. Potentially
  // unsafe calls are then allowed whatever the capture's mode.
  bool threadRelaxedAt(const WorkCall &Call) const;
  // Work that Issue queued on Q while a capture of Q may be active there: a node of the graph,
  // which runs when the graph is launched - not now, and not after the capture's end.
  bool capturedWork(const WorkCall &Issue, const Queue &Q) const;

  struct FunctionEffect;  // what a helper does to its caller's captures (CaptureRegions.cpp)

private:
  bool Any = false;
  std::map<const clang::CallExpr *, std::vector<ActiveCapture>> Before;
  std::set<const clang::CallExpr *> ThreadRelaxed;
};

} // namespace syncwatch
