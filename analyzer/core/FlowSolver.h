// The solver WorkFlow runs over one function's CFG: a forward worklist to the fixpoint of
// WorkState (WorkState.h) under a block transfer (WorkTransfer.h), in the spirit of clang's
// dataflow framework (clang/Analysis/FlowSensitive), which it does not use: that framework
// joins every predecessor of a block, and WorkFlow needs a loop's exit to take only the
// state that came around the loop once its body ran (an unknown trip count is at least one,
// so a loop whose body drains everything does not leave its work running after the loop).
// The framework also models every value of the program, which these states do not need.
#pragma once

#include "WorkState.h"

#include "clang/Analysis/CFG.h"

#include <functional>
#include <vector>

namespace syncwatch {

struct FlowSolution {
  // False when the block-visit limit ran out before the fixpoint: the states are not
  // sound and the function must not be judged (its checks say so in a note).
  bool Complete = true;
  unsigned Visits = 0, Limit = 0;
  std::vector<WorkState> In;  // by block id: the state at the block's entry
};

// TransferBlock: the state after a block, from the state at its entry.
// VisitsPerBlock: the limit is that many visits per block of the CFG (64 by default; a
// smaller one makes tests reach it).
// RefineEdge, if given: what a branch's condition says on one of its edges (the successor's
// index: 0 when the condition holds), applied to the state sent along it.
using EdgeRefinement = std::function<void(const clang::CFGBlock &, unsigned, WorkState &)>;
FlowSolution solveForward(const clang::CFG &G, const WorkState &Entry,
                          const std::function<WorkState(const clang::CFGBlock &, WorkState)> &TransferBlock,
                          unsigned VisitsPerBlock = 64, const EdgeRefinement &RefineEdge = {});

} // namespace syncwatch
