// Which GPU work may be in flight at each CUDA call: a forward dataflow over clang's CFG of
// every function FunctionWork found, shared by implicit-sync, sync-memcpy and sync-in-loop.
//
// The state at a program point is the set of work items (launches, async calls, calls of
// helpers that leave work running) that may still run, each with the queue it waits in
// (legacy stream, per-thread stream, a named stream, or unknown), and which of them every
// path leaves running (must). Joins take the union for "may" and the intersection for
// "must"; loop back edges carry one iteration's work into the next. What drains work:
//   cudaDeviceSynchronize / cuCtxSynchronize          everything
//   cudaStreamSynchronize(s), a query loop on s        work on s (the legacy stream: also
//                                                      every blocking stream)
//   cudaEventSynchronize(e), a query loop on e         what was in flight on e's stream
//                                                      when e was recorded, on every path
//   a blocking legacy-stream copy (cudaMemcpy...)      everything except work on streams
//                                                      created cudaStreamNonBlocking here
//   a helper of this unit, or of another unit that     what its summary says it drains
//   syncwatch-lint summarized (CrossUnit.h)
// Work of unknown queue (a helper's, a stream we cannot name) is drained by any host wait:
// syncwatch prefers a missed finding to a false one there.
//
// Work queued into a capture of its own stream (CaptureRegions.h) is issued nowhere: it is a
// node of the graph, which runs when the graph is launched - not at the call, and not after
// the capture's end (a helper that captures work leaves none running).
//
// Each function also starts with the work its callers may have left: one entry item for
// each stream parameter and one for everything else. Its context is computed from the
// call sites in this unit, and from other units' calls of it that left work running (their
// summaries); a function with no caller here (or an open unit: no main) gets "unknown",
// which checks report at lower certainty or not at all.
#pragma once

#include "FlowTypes.h"
#include "FunctionWork.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace syncwatch {

class CaptureRegions;

// Work that may be in flight when a call starts.
struct Pending {
  const WorkCall *Work;  // the launch, async call or helper call that issued it
  bool Must;             // left running on every path to the call
};

// What the callers of a function may have left running when it starts.
enum class CallerWork : std::uint8_t { None, Unknown, Known };

struct CallFlow {
  std::vector<Pending> InFlight;          // the function's own work, before the call
  std::vector<Pending> Waited;            // for a host wait: the part of InFlight it waits for
  CallerWork Caller = CallerWork::None;   // the callers' work, still running here
  const WorkCall *CallerSite = nullptr;   // Known: a call site that left work running...
  const WorkCall *CallerPending = nullptr;  // ...and that work
  // Known from another unit (syncwatch-lint's second phase): the call there, and its work.
  const ExternalCall *CallerElsewhere = nullptr;
  const ExternalCall::Work *CallerElsewhereWork = nullptr;
  // The function takes streams and has drained every one of them on every path here
  // (cudaStreamSynchronize(stream) before reading a result back): what its callers left
  // elsewhere is theirs to wait for.
  bool CallerStreamsDrained = false;
  bool any() const { return !InFlight.empty() || Caller == CallerWork::Known; }
};

// Its transfer (WorkTransfer.h) asks it for callees' summaries through SummaryLookup alone:
// WorkFlow analyzes callees first, so a call finds its callee's summary here.
class WorkFlow final : public SummaryLookup {
public:
  // Analyzes every function of the unit (callees first, so calls use their summaries).
  // VisitsPerBlock: the solver's limit (FlowSolver.h).
  // External: other units' summaries (CrossUnit.h), for the work their calls of this
  // unit's functions leave running; nullptr when there are none.
  // DoneAtReturn: copies that return only once they are done - a cudaMemcpyAsync into
  // pageable host memory (HostMemoryProvenance): the host waits for the copy and so for
  // all earlier work in its stream (measured on the H200: 64 MB DtoH, 3.9 ms). Such a copy
  // drains its stream like cudaStreamSynchronize and leaves nothing running.
  WorkFlow(const std::vector<FunctionCalls> &Functions, clang::ASTContext &Ctx, unsigned VisitsPerBlock = 64,
           const SummaryIndex *External = nullptr, std::set<const clang::CallExpr *> DoneAtReturn = {});
  ~WorkFlow();

  // The state before a call; nullptr for calls the CFG does not reach.
  const CallFlow *at(const WorkCall &C) const;
  const FunctionSummary *summary(const clang::Decl *Function) const override;
  // A stream this unit creates with cudaStreamNonBlocking (its variable, member or array).
  bool createdNonBlocking(const clang::Decl *Stream) const {
    return std::find(NonBlockingStreams.begin(), NonBlockingStreams.end(), Stream) != NonBlockingStreams.end();
  }
  // Where captures are active (computed first: the flow leaves their work out).
  const CaptureRegions &captures() const { return *Captures; }
  // A copy that returns only once it is done (DoneAtReturn above).
  bool doneAtReturn(const WorkCall &C) const { return DoneAtReturn.count(C.Call) != 0; }
  // The queue a call issues its work on (WorkTransfer.h's queueOf, with these summaries).
  Queue queueOf(const WorkCall &C) const;
  // A cudaEventSynchronize / query loop in Loop on an event that Loop records only after
  // it: it waits for an earlier iteration's work (double buffering), not this one's.
  bool waitsOnEarlierIteration(const FunctionCalls &F, const WorkCall &Sync,
                               const clang::Stmt *Loop) const;

  // A function whose analysis ran into the solver's limit (FlowSolver.h): none of its calls
  // has a state, and the flow checks say in a note that they did not judge it.
  struct Unjudged {
    const clang::FunctionDecl *Function;
    unsigned BlockVisits;  // the limit it reached
  };
  const std::vector<Unjudged> &unjudged() const { return Unfinished; }

  struct FunctionState;

private:
  void analyze(const FunctionCalls &F);
  void computeCallerWork();

  clang::ASTContext &Ctx;
  std::map<const clang::Decl *, const FunctionCalls *> ByDecl;
  std::map<const clang::Decl *, FunctionSummary> Summaries;
  std::map<const WorkCall *, CallFlow> Flows;
  std::map<const clang::Decl *, FunctionState *> States;
  // The same states in the order they were analyzed (callees first, then the unit's
  // order): callers' context is raised in this order, and the first caller that raises
  // it is the one a note names - so the note is the same in every process, not in the
  // order of the states' addresses.
  std::vector<FunctionState *> InOrder;
  std::vector<const clang::Decl *> NonBlockingStreams;
  std::unique_ptr<CaptureRegions> Captures;
  bool ClosedUnit = false;   // the unit defines main: its call sites are all the callers
  std::vector<Unjudged> Unfinished;
  unsigned VisitsPerBlock;
  const SummaryIndex *External;
  std::set<const clang::CallExpr *> DoneAtReturn;
};

} // namespace syncwatch
