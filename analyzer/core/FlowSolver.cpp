#include "FlowSolver.h"

#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/FlowSensitive/DataflowWorklist.h"

#include <set>

using namespace clang;

namespace syncwatch {

namespace {

// The loop a block heads: for, while and range-for headers are the blocks whose terminator
// is the loop statement (a do-while's condition block is its latch, not its header).
const Stmt *loopOf(const CFGBlock &B) {
  const Stmt *T = B.getTerminatorStmt();
  return T && isa<ForStmt, WhileStmt, CXXForRangeStmt>(T) ? T : nullptr;
}

// A loop header's successors are, as for every two-way branch of clang's CFG, the edge
// taken when the condition holds (into the body) and then the one taken when it does not.
bool isLoopExit(const CFGBlock &Header, unsigned SuccIndex) { return loopOf(Header) && SuccIndex == 1; }

} // namespace

FlowSolution solveForward(const CFG &G, const WorkState &Entry,
                          const std::function<WorkState(const CFGBlock &, WorkState)> &TransferBlock,
                          unsigned VisitsPerBlock, const EdgeRefinement &RefineEdge) {
  FlowSolution Out;
  Out.In.resize(G.getNumBlockIDs());
  // Loop headers also keep the state that came around their back edges: the exit edge
  // takes only that one once the body ran.
  std::vector<WorkState> BackIn(G.getNumBlockIDs());
  Out.In[G.getEntry().getBlockID()] = Entry;
  PostOrderCFGView POV(&G);
  ForwardDataflowWorklist Work(G, &POV);
  Work.enqueueBlock(&G.getEntry());
  // The lattice is finite and every transfer monotone, so the fixpoint comes; the limit
  // only guards against a CFG nobody expected, and running into it is said, not hidden.
  Out.Limit = VisitsPerBlock * (G.getNumBlockIDs() + 1);
  // Headers whose body never came back around (it always breaks or returns): their exit
  // edge takes the entry state after all.
  std::set<const CFGBlock *> ExitFromEntry;
  for (;;) {
    while (const CFGBlock *B = Work.dequeue()) {
      if (Out.Visits++ == Out.Limit) {
        Out.Complete = false;
        return Out;
      }
      WorkState After = TransferBlock(*B, Out.In[B->getBlockID()]);
      bool Around = loopOf(*B) && BackIn[B->getBlockID()].Reached;
      WorkState AfterAround = Around ? TransferBlock(*B, BackIn[B->getBlockID()]) : After;
      unsigned Index = 0;
      for (const CFGBlock *Succ : B->succs()) {
        unsigned SuccIndex = Index;
        bool Exit = isLoopExit(*B, Index++);
        // exit(), abort(), a throw: the error paths of CUDA_CHECK macros end the program,
        // they do not return to the caller with work in flight.
        if (!Succ || (Succ == &G.getExit() && B->hasNoReturnElement()))
          continue;
        if (Exit && !Around && !ExitFromEntry.count(B))
          continue;
        WorkState Refined;
        const WorkState *SentState = Exit ? &AfterAround : &After;
        if (RefineEdge && B->succ_size() == 2) {
          Refined = *SentState;
          RefineEdge(*B, SuccIndex, Refined);
          SentState = &Refined;
        }
        const WorkState &Sent = *SentState;
        bool Changed = Out.In[Succ->getBlockID()].join(Sent);
        if (const Stmt *Target = loopOf(*Succ); Target && B->getLoopTarget() == Target)
          Changed |= BackIn[Succ->getBlockID()].join(Sent);
        if (Changed)
          Work.enqueueBlock(Succ);
      }
    }
    bool More = false;
    for (const CFGBlock *B : G)
      if (loopOf(*B) && Out.In[B->getBlockID()].Reached && !BackIn[B->getBlockID()].Reached &&
          ExitFromEntry.insert(B).second) {
        Work.enqueueBlock(B);
        More = true;
      }
    if (!More)
      return Out;
  }
}

} // namespace syncwatch
