// WorkFlow's transfer function: what one call does to the work in flight. A call first
// drains (a host wait removes the work it waits for), then generates (the work it issues is
// in flight after it). What a call waited for is the difference between the state before it
// and the state after its drain, plus the work it waits for in part (another element of an
// array of streams it synchronizes).
#pragma once

#include "WorkState.h"

#include <optional>
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
// Whether a call of this API leaves work running on the GPU after it returns.
bool isGeneratingApi(const ApiInfo &A);

class WorkTransfer {
public:
  // Origins: the function's work items; GenOf: the item each generating call issues;
  // NonBlocking: the streams the unit creates cudaStreamNonBlocking.
  WorkTransfer(const std::vector<Origin> &Origins, const std::map<const WorkCall *, unsigned> &GenOf,
               clang::ASTContext &Ctx, const WorkFlow &Flow, const std::vector<const clang::Decl *> &NonBlocking)
      : Origins(Origins), GenOf(GenOf), Ctx(Ctx), Flow(Flow), NonBlocking(NonBlocking) {}

  // The state after W, from the state before it.
  void apply(const WorkCall &W, WorkState &S) const {
    drain(W, S);
    generate(W, S);
  }
  void drain(const WorkCall &W, WorkState &S) const;
  void generate(const WorkCall &W, WorkState &S) const;
  // What W waits for, in full or in part: Before, and the state after its drain.
  llvm::BitVector waited(const WorkCall &W, const WorkState &Before, const WorkState &AfterDrain) const;

private:
  bool nonBlocking(const clang::Decl *D) const;
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
  const WorkFlow &Flow;
  const std::vector<const clang::Decl *> &NonBlocking;
};

} // namespace syncwatch
