// The lattice (WorkState.h) and the solver (FlowSolver.h) on their own, below WorkFlow and
// its transfer (issue 39, item 7): the join's laws on hand-made states, and the fixpoint on
// CFGs of small plain C++ functions under a toy transfer - a call `issue<N>()` puts work
// item N in flight (may and must), `drain()` waits for everything - so that a change of the
// solver's edge rules (a loop's exit takes the state that came around the loop) shows here
// before it shows as a changed finding.
#include "../../analyzer/core/FlowSolver.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace clang;
using namespace syncwatch;

namespace {

constexpr unsigned kItems = 4;

WorkState reached(std::initializer_list<unsigned> May, std::initializer_list<unsigned> Must) {
  WorkState S;
  S.Reached = true;
  S.May.resize(kItems);
  S.Must.resize(kItems);
  for (unsigned I : May)
    S.May.set(I);
  for (unsigned I : Must)
    S.Must.set(I);
  return S;
}

std::string bits(const llvm::BitVector &B) {
  std::string Out;
  for (unsigned I = 0; I < B.size(); ++I)
    if (B.test(I))
      Out += std::to_string(I);
  return Out;
}

// --- the lattice ------------------------------------------------------------------------

TEST(WorkState, JoiningAnUnreachedStateChangesNothing) {
  WorkState S = reached({1}, {1});
  EXPECT_FALSE(S.join(WorkState{}));
  EXPECT_EQ(bits(S.May), "1");
  EXPECT_EQ(bits(S.Must), "1");
}

TEST(WorkState, AnUnreachedStateTakesTheFirstStateJoinedIntoIt) {
  WorkState S;
  EXPECT_TRUE(S.join(reached({0, 2}, {2})));
  EXPECT_TRUE(S.Reached);
  EXPECT_EQ(bits(S.May), "02");
  EXPECT_EQ(bits(S.Must), "2");
}

TEST(WorkState, MayIsTheUnionAndMustTheIntersection) {
  WorkState S = reached({0, 1}, {0, 1});
  EXPECT_TRUE(S.join(reached({1, 2}, {1, 2})));
  EXPECT_EQ(bits(S.May), "012");
  EXPECT_EQ(bits(S.Must), "1");
}

TEST(WorkState, JoinIsIdempotentAndSaysWhenNothingChanged) {
  WorkState S = reached({0}, {0});
  WorkState O = reached({3}, {});
  EXPECT_TRUE(S.join(O));
  EXPECT_FALSE(S.join(O));
  EXPECT_FALSE(S.join(S));
}

TEST(WorkState, EventCoversAndStreamDependenciesAreMustMaps) {
  // Keys recorded on both paths stay, with the bits both recorded; a key one path lacks is
  // gone (an event recorded on one branch covers nothing after the join).
  const Decl *Ev = reinterpret_cast<const Decl *>(0x10), *Other = reinterpret_cast<const Decl *>(0x20);
  WorkState S = reached({0, 1}, {0, 1}), O = reached({0, 1}, {0, 1});
  llvm::BitVector Both(kItems), First(kItems);
  Both.set(0);
  Both.set(1);
  First.set(0);
  S.Cover[{Ev, ""}] = Both;
  S.Cover[{Other, ""}] = Both;
  O.Cover[{Ev, ""}] = First;
  S.Deps[Ev] = Both;
  O.Deps[Other] = Both;
  EXPECT_TRUE(S.join(O));
  ASSERT_EQ(S.Cover.size(), 1u);
  EXPECT_EQ(bits(S.Cover.at({Ev, ""})), "0");
  EXPECT_TRUE(S.Deps.empty());
}

// --- the solver -------------------------------------------------------------------------

// One function's CFG, and the toy transfer over its blocks.
class ToyFlow {
public:
  explicit ToyFlow(const std::string &Code) {
    Unit = tooling::buildASTFromCodeWithArgs("void drain(); template <int N> void issue();\n" + Code, {"-std=c++17"});
    using namespace ast_matchers;
    auto Found = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Unit->getASTContext());
    Fn = Found.empty() ? nullptr : Found[0].getNodeAs<FunctionDecl>("f");
    if (Fn)
      G = CFG::buildCFG(Fn, Fn->getBody(), &Unit->getASTContext(), CFG::BuildOptions());
  }

  FlowSolution solve(unsigned VisitsPerBlock = 64) const {
    WorkState Entry;
    Entry.Reached = true;
    Entry.May.resize(kItems);
    Entry.Must.resize(kItems);
    return solveForward(*G, Entry, [](const CFGBlock &B, WorkState S) { return transfer(B, std::move(S)); },
                        VisitsPerBlock);
  }

  // The state at the function's exit.
  WorkState atExit(const FlowSolution &S) const { return S.In[G->getExit().getBlockID()]; }

  bool ok() const { return G != nullptr; }

private:
  static WorkState transfer(const CFGBlock &B, WorkState S) {
    for (const CFGElement &E : B) {
      auto Stmt = E.getAs<CFGStmt>();
      const auto *Call = Stmt ? dyn_cast<CallExpr>(Stmt->getStmt()) : nullptr;
      const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
      if (!Callee)
        continue;
      if (Callee->getName() == "drain") {
        S.May.reset();
        S.Must.reset();
      } else if (Callee->getName() == "issue") {
        unsigned N = Callee->getTemplateSpecializationArgs()->get(0).getAsIntegral().getZExtValue();
        S.May.set(N);
        S.Must.set(N);
      }
    }
    return S;
  }

  std::unique_ptr<ASTUnit> Unit;
  const FunctionDecl *Fn = nullptr;
  std::unique_ptr<CFG> G;
};

TEST(FlowSolver, StraightLineWorkReachesTheExit) {
  ToyFlow F("void f() { issue<0>(); issue<2>(); }");
  ASSERT_TRUE(F.ok());
  FlowSolution S = F.solve();
  EXPECT_TRUE(S.Complete);
  WorkState Exit = F.atExit(S);
  EXPECT_EQ(bits(Exit.May), "02");
  EXPECT_EQ(bits(Exit.Must), "02");
}

TEST(FlowSolver, ABranchsWorkMayBeRunningAfterTheJoinButNeedNotBe) {
  ToyFlow F("void f(bool c) { issue<0>(); if (c) issue<1>(); else drain(); }");
  ASSERT_TRUE(F.ok());
  WorkState Exit = F.atExit(F.solve());
  EXPECT_EQ(bits(Exit.May), "01");
  EXPECT_EQ(bits(Exit.Must), "");
}

TEST(FlowSolver, ALoopCarriesItsBodysWorkAroundAndOut) {
  ToyFlow F("void f(int n) { for (int i = 0; i < n; ++i) issue<3>(); }");
  ASSERT_TRUE(F.ok());
  WorkState Exit = F.atExit(F.solve());
  EXPECT_EQ(bits(Exit.May), "3");
}

TEST(FlowSolver, ALoopWhoseBodyDrainsLeavesNothingRunningAfterIt) {
  // The exit edge takes the state that came around the loop, not the state before it: an
  // unknown trip count is at least one.
  ToyFlow F("void f(int n) { issue<1>(); while (n-- > 0) drain(); }");
  ASSERT_TRUE(F.ok());
  WorkState Exit = F.atExit(F.solve());
  EXPECT_TRUE(Exit.Reached);
  EXPECT_EQ(bits(Exit.May), "");
}

TEST(FlowSolver, CodeAfterAReturnIsNotReached) {
  ToyFlow F("void f(bool c) { if (c) return; issue<2>(); }");
  ASSERT_TRUE(F.ok());
  WorkState Exit = F.atExit(F.solve());
  EXPECT_EQ(bits(Exit.May), "2");
  EXPECT_EQ(bits(Exit.Must), "");
}

TEST(FlowSolver, TheVisitLimitMakesTheSolutionIncomplete) {
  ToyFlow F("void f(int n) { for (int i = 0; i < n; ++i) { for (int j = 0; j < n; ++j) issue<0>(); issue<1>(); } }");
  ASSERT_TRUE(F.ok());
  EXPECT_TRUE(F.solve().Complete);
  FlowSolution Tight = F.solve(1);
  EXPECT_FALSE(Tight.Complete);
  EXPECT_GT(Tight.Visits, 0u);
}

} // namespace
