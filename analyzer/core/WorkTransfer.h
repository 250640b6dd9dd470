// WorkFlow's transfer function: what one call does to the work in flight. A call first
// drains (a host wait removes the work it waits for), then generates (the work it issues is
// in flight after it). What a call waited for is the difference between the state before it
// and the state after its drain, plus the work it waits for in part (another element of an
// array of streams it synchronizes).
#pragma once

#include "WorkState.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace syncwatch {

// The declaration a stream or event expression names: a variable, a parameter, a member
// (of any object), or the array an element is taken from. nullptr for anything else.
const clang::Decl *namedDecl(const clang::Expr *E);
std::optional<EventKey> eventKey(const clang::Expr *E, clang::ASTContext &Ctx);
// The queue a stream argument names.
Queue queueOfStreamArg(const StreamArg &S, bool PerThreadDefault, clang::ASTContext &Ctx);
// The queue of the stream a helper's parameter P receives at the call W.
Queue argQueue(const WorkCall &W, unsigned P, clang::ASTContext &Ctx);
// The queue a call issues its work on; a helper's, where its summary says it leaves work.
Queue queueOf(const WorkCall &C, const SummaryLookup &Summaries, clang::ASTContext &Ctx);
// Whether a call of this API leaves work running on the GPU after it returns.
bool isGeneratingApi(const ApiInfo &A);

class WorkTransfer {
public:
  // Origins: the function's work items; GenOf: the item each generating call issues;
  // Summaries: the callees' (a helper drains what its summary says); NonBlocking: the
  // streams the unit creates cudaStreamNonBlocking; DoneAtReturn: copies that return only
  // once they are done (WorkFlow.h), which drain their stream.
  WorkTransfer(const std::vector<Origin> &Origins, const std::map<const WorkCall *, unsigned> &GenOf,
               clang::ASTContext &Ctx, const SummaryLookup &Summaries,
               const std::vector<const clang::Decl *> &NonBlocking,
               const std::set<const clang::CallExpr *> &DoneAtReturn)
      : Origins(Origins), GenOf(GenOf), Ctx(Ctx), Summaries(Summaries), NonBlocking(NonBlocking),
        DoneAtReturn(DoneAtReturn) {}

  // The state after W, from the state before it.
  void apply(const WorkCall &W, WorkState &S) const {
    drain(W, S);
    generate(W, S);
  }
  void drain(const WorkCall &W, WorkState &S) const;
  void generate(const WorkCall &W, WorkState &S) const;
  // A stream handle found null on a branch (`if (streams[i]) cudaStreamSynchronize(streams[i])`):
  // no work of the program runs on that stream there, so its items are not in flight.
  void nullStream(const Queue &Q, WorkState &S) const;
  // What W waits for, in full or in part: Before, and the state after its drain.
  llvm::BitVector waited(const WorkCall &W, const WorkState &Before, const WorkState &AfterDrain) const;

private:
  bool nonBlocking(const clang::Decl *D) const;
  bool doneAtReturn(const WorkCall &W) const { return DoneAtReturn.count(W.Call) != 0; }
  // Whether a host wait for queue Q also waits for origin O.
  bool drainedBy(const Queue &Q, const Origin &O) const;
  bool drainedByLegacyCopy(const Origin &O, bool PerThreadBuild) const;
  template <typename Pred> void kill(WorkState &S, Pred P) const;
  void killBits(WorkState &S, const llvm::BitVector &Bits) const;
  void drainQueue(WorkState &S, const Queue &Q) const;
  // The queues W synchronizes (drain drains them; waited() counts the other elements of a
  // named array of streams as waited for in part).
  std::vector<Queue> drainedQueues(const WorkCall &W) const;

  const std::vector<Origin> &Origins;
  const std::map<const WorkCall *, unsigned> &GenOf;
  clang::ASTContext &Ctx;
  const SummaryLookup &Summaries;
  const std::vector<const clang::Decl *> &NonBlocking;
  const std::set<const clang::CallExpr *> &DoneAtReturn;
};

} // namespace syncwatch
