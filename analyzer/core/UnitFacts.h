// What syncwatch knows about one translation unit, computed once and shared by every check:
// its stream use, its catalogued CUDA calls, each function's GPU work and the dataflow over
// it, and the provenance of host memory. Checks only judge these facts (SyncwatchCheck.h);
// before this, each of the three flow checks walked the unit, built every CFG and ran the
// dataflow of its own.
//
// The front end (syncwatch-lint's LintRunner, the clang-tidy adapter) registers the facts'
// matchers once, forwards their matches to observe(), calls reset() at the start of each unit
// and hands the facts to each enabled check's judge() at its end. What no enabled check asks
// for is never computed: the walk, the CFGs and the dataflow run on first use.
#pragma once

#include "CaptureRegions.h"
#include "FunctionWork.h"
#include "HostMemoryProvenance.h"
#include "StreamUsage.h"
#include "TorchCalls.h"
#include "WorkFlow.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <memory>
#include <set>
#include <vector>

namespace syncwatch {

class UnitFacts {
public:
  UnitFacts();
  ~UnitFacts();
  UnitFacts(const UnitFacts &) = delete;
  UnitFacts &operator=(const UnitFacts &) = delete;

  // Kernel launches, catalogued CUDA calls and thrust/cub calls outside system headers.
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback);
  // The unit itself, matched once: its functions are walked even when it makes no CUDA
  // call of its own. syncwatch-lint's summaries need that: a file whose functions only call
  // other files' functions (train.cu -> stage() in mid.cu -> release() in ops.cu, where the
  // cudaFree is) passes its callers' work in flight on, and its functions drain what their
  // callees drain. The editor's single-file analysis has no summaries and skips such units.
  void registerUnitMatcher(clang::ast_matchers::MatchFinder &Finder,
                           clang::ast_matchers::MatchFinder::MatchCallback *Callback);
  // A match of those. The same node observed again (the clang-tidy plugin registers the
  // matchers once per enabled check) adds nothing.
  void observe(const clang::ast_matchers::MatchFinder::MatchResult &Result);
  void reset();
  // The dataflow solver's limit per CFG block (FlowSolver.h): tests make it reachable.
  void setFlowLimit(unsigned VisitsPerBlock) { FlowLimit = VisitsPerBlock; }
  // Other units' function summaries (syncwatch-lint's second phase, CrossUnit.h); kept
  // across reset(). nullptr: calls into other units are opaque.
  void setExternal(const SummaryIndex *Index) {
    External = Index;
    Work.setExternal(Index);
  }
  const SummaryIndex *external() const { return External; }
  // The same unit, to be judged again with other summaries (Index): what the matchers and
  // the walk collected stays, the calls into other units take Index's summaries, and
  // what was derived from the old ones (the flow) is derived anew when next asked. Half a
  // judgement's time on AMGX's units is the matchers' walk over the AST, which this skips.
  void rejudgeWith(const SummaryIndex *Index) {
    setExternal(Index);
    Work.refreshExternal();
    Flow.reset();
  }

  // Null until a CUDA call (or, with registerUnitMatcher, the unit) was matched: a unit
  // without one has no facts to judge.
  clang::ASTContext *context() const { return Ctx; }
  // Launches, stream-taking calls, legacy-stream work and stream creations (the unit's
  // macro state final: call after the parse).
  const StreamUsage &streams() const;
  // The catalogued calls of the user's code, in the order they were matched.
  const std::vector<const clang::CallExpr *> &apiCalls() const { return ApiCalls; }
  // Each function's GPU calls, in source order, and the work in flight at each.
  const std::vector<FunctionCalls> &functions() const;
  const WorkFlow &flow() const;
  // Where a stream may be being captured into a CUDA graph (CaptureRegions.h).
  const CaptureRegions &captures() const;
  // Where host buffers come from (malloc, cudaMallocHost, std::vector...).
  HostMemoryProvenance &hostMemory() const;
  // The unit uses ATen: a PyTorch extension (the torch rules judge it).
  bool usesAten() const;
  // The function or lambda a launch, catalogued call or tensor sync is in (nullptr if none).
  const clang::Decl *functionOf(const clang::CallExpr *Call) const { return Work.functionOf(Call); }
  // cuBLAS/cuDNN handles the unit creates, and their calls.
  const LibraryHandles &handles() const { return Handles; }

private:
  clang::ASTContext *Ctx = nullptr;
  std::vector<const clang::CallExpr *> ApiCalls;
  std::set<const clang::CallExpr *> SeenApiCalls;
  // Computed on first use (a cache: the facts do not change once the unit is parsed).
  mutable StreamUsage Streams;
  mutable bool StreamsFinished = false;
  mutable FunctionWork Work;
  mutable std::unique_ptr<WorkFlow> Flow;
  mutable std::unique_ptr<HostMemoryProvenance> Memory;
  mutable std::optional<bool> Aten;
  LibraryHandles Handles;
  unsigned FlowLimit = 64;
  const SummaryIndex *External = nullptr;
};

} // namespace syncwatch
