// The GPU-related calls of each function body, in source order, with the loops around
// them, and the calls to the unit's own functions and lambdas (whose work and waits
// WorkFlow summarizes). WorkFlow runs the dataflow over these; the checks ask it.
// Lambdas are functions of their own: their calls are not their enclosing function's.
#pragma once

#include "CudaCalls.h"
#include "LibraryCalls.h"
#include "TorchCalls.h"

#include "syncwatch/unit_summary.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace syncwatch {

struct WorkCall {
  const clang::CallExpr *Call;
  const ApiInfo *Api;                       // nullptr for <<<...>>> launches and helpers
  clang::SourceLocation Loc;                // file location of the call
  std::vector<const clang::Stmt *> Loops;   // enclosing loops in this function, innermost first
  bool StreamWork;                          // puts work into a stream (launch, Async copy...)
  // The host waits here for earlier work: an explicit sync (cudaDeviceSynchronize,
  // cudaStreamSynchronize...) or a synchronous legacy-stream copy (cudaMemcpy), which waits
  // for all legacy-stream and blocking-stream work before it.
  bool HostWaits;
  // A call to a function or lambda of this unit that has a body: WorkFlow applies its
  // summary (work it leaves in flight, what it waits for). nullptr otherwise.
  const clang::FunctionDecl *Helper = nullptr;
  // A cudaStreamQuery / cudaEventQuery in the condition of its innermost loop: the loop
  // ends only once the work is done, so leaving it waited like a synchronize.
  bool PollsToCompletion = false;
  // A call of the user's own code defined in another unit that is handed a stream
  // (reduce::sums(d, n, stream)): it may synchronize that stream. WorkFlow takes it to,
  // so that a later call is not blamed for work the callee most likely waited for.
  bool OpaqueWithStream = false;
  // A thrust algorithm or cub::Device* call (library_api.def) that does GPU work.
  const LibraryApi *Library = nullptr;
  // A call of the user's own code that this unit declares but does not define. Its summary
  // from the unit that defines it (syncwatch-lint's second phase, CrossUnit.h), when there is
  // one, says what it does; without one it is opaque (OpaqueWithStream when handed a stream).
  const clang::FunctionDecl *ExternalCallee = nullptr;
  const ExportedFunction *External = nullptr;
  // A PyTorch call that waits for the GPU (Tensor::item, .cpu(), nonzero...; TorchCalls.h),
  // in a unit that uses ATen. HostWaits is set: it waits for the work queued before it.
  std::optional<TensorSync> Tensor;
  // A destructor the program runs without a call in the source (Call is then made up: the
  // destroyed object's `~T()`, at the end of its scope): a local variable's at the end of its
  // scope (Destroys), or `delete p`'s (Trigger: the delete expression). A Buffer class whose
  // destructor calls cudaFree, going out of scope while its kernel runs, is a device-wide
  // wait like any helper's.
  const clang::VarDecl *Destroys = nullptr;
  const clang::Stmt *Trigger = nullptr;

  bool isLaunch() const {
    return !Api && !Helper && !OpaqueWithStream && !Library && !ExternalCallee && !Tensor;
  }
  // The function this call enters, defined here or elsewhere.
  const clang::FunctionDecl *callee() const { return Helper ? Helper : ExternalCallee; }
};

struct FunctionCalls {
  const clang::Decl *Function;              // FunctionDecl, or a lambda's call operator
  std::vector<WorkCall> Calls;              // in source order
};

// Built at the end of the unit by one walk over the user's own declarations (those of the
// traversal scope with the helpers it calls, UnitScope.h), keeping the enclosing function
// and loops on a stack. (Matchers with forCallable/hasAncestor would
// build clang's parent map over every header: measured as the largest cost of these checks.)
class FunctionWork {
public:
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback);
  // Remembers the unit; the walk happens in functions().
  void observe(const clang::ast_matchers::MatchFinder::MatchResult &Result);
  void reset();
  // The summaries of functions other units define (syncwatch-lint's second phase); nullptr:
  // none, every call into another unit is opaque.
  void setExternal(const SummaryIndex *Index) { External = Index; }
  // After setExternal, once walked: the calls into other units take the new summaries
  // (what the callee leaves running, or opaque), without walking the unit again.
  void refreshExternal();
  // Walks the unit once (on first call) and returns each function's calls in source order.
  const std::vector<FunctionCalls> &functions();
  clang::ASTContext *context() const { return Ctx; }
  // The function (or lambda call operator) a recorded call is in, or nullptr.
  const clang::Decl *functionOf(const clang::CallExpr *Call);

  // Used by the walk. Destroys / Trigger: a made-up destructor call (WorkCall).
  void add(const clang::Decl *Function, const clang::CallExpr *Call,
           const std::vector<const clang::Stmt *> &Loops, const clang::VarDecl *Destroys = nullptr,
           const clang::Stmt *Trigger = nullptr);

private:
  clang::ASTContext *Ctx = nullptr;
  const SummaryIndex *External = nullptr;
  bool Walked = false;
  bool Aten = false;  // the unit uses ATen: its tensor syncs are calls too
  std::map<const clang::Decl *, FunctionCalls> ByFunction;
  std::vector<const clang::Decl *> Order;
  std::set<std::pair<const clang::Decl *, const clang::CallExpr *>> Seen;
  std::vector<FunctionCalls> Sorted;
  std::map<const clang::CallExpr *, const clang::Decl *> FunctionOfCall;
};

// clang's USR of a declaration: the same function in every unit ("" when it has none). The
// key of other units' summaries (SummaryIndex, CrossUnit.h), by which a call into another
// unit finds its callee's.
std::string usrOf(const clang::Decl *D);

// Whether a sync call's location was already reported by a check (template instantiations
// repeat a function's calls).
class ReportedOnce {
public:
  bool first(clang::SourceLocation Loc) { return Locs.insert(Loc.getRawEncoding()).second; }
  void clear() { Locs.clear(); }

private:
  std::set<unsigned> Locs;
};

} // namespace syncwatch
