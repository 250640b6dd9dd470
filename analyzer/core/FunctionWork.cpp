#include "FunctionWork.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

void FunctionWork::registerMatchers(MatchFinder &Finder, MatchFinder::MatchCallback *Callback) {
  Finder.addMatcher(cudaKernelCallExpr(forCallable(decl().bind("callable"))).bind("launch"), Callback);
  Finder.addMatcher(callExpr(catalogedCallMatcher(), forCallable(decl().bind("callable"))), Callback);
}

void FunctionWork::reset() {
  Ctx = nullptr;
  ByFunction.clear();
  Order.clear();
  Seen.clear();
}

// `do { ... } while (0)` is how macros like CUDA_CHECK make one statement, not a loop.
static bool isLoop(const Stmt *S, ASTContext &Ctx) {
  if (const auto *Do = dyn_cast<DoStmt>(S)) {
    bool Value = true;
    const Expr *Cond = Do->getCond();
    if (Cond && !Cond->isValueDependent() && Cond->EvaluateAsBooleanCondition(Value, Ctx))
      return Value;
    return true;
  }
  return isa<ForStmt, WhileStmt, CXXForRangeStmt>(S);
}

// Loops between the call and its function (or lambda) boundary, innermost first.
static std::vector<const Stmt *> enclosingLoops(const Stmt *S, ASTContext &Ctx) {
  std::vector<const Stmt *> Loops;
  DynTypedNodeList Parents = Ctx.getParents(*S);
  for (int Depth = 0; Depth < 512 && !Parents.empty(); ++Depth) {
    const DynTypedNode &P = Parents[0];
    // Stop at the function (or lambda, or block) boundary; pass through other
    // declarations: `cudaError_t e = (call);` inside CUDA_CHECK puts the call under a VarDecl.
    if (P.get<FunctionDecl>() || P.get<BlockDecl>() || P.get<LambdaExpr>() || P.get<BlockExpr>() ||
        P.get<ObjCMethodDecl>())
      break;
    if (const Stmt *PS = P.get<Stmt>()) {
      if (isLoop(PS, Ctx))
        Loops.push_back(PS);
      Parents = Ctx.getParents(*PS);
    } else {
      Parents = Ctx.getParents(P);
    }
  }
  return Loops;
}

void FunctionWork::observe(const MatchFinder::MatchResult &Result) {
  const auto *Fn = Result.Nodes.getNodeAs<Decl>("callable");
  if (!Fn)
    return;
  Ctx = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("launch");
  if (!Call)
    Call = Result.Nodes.getNodeAs<CallExpr>("api-call");
  if (!Call || isOutsideUserCode(Call->getBeginLoc(), SM) || !Seen.insert(Call).second)
    return;
  const ApiInfo *Api = isa<CUDAKernelCallExpr>(Call) ? nullptr : catalogueEntry(*Call);
  if (!isa<CUDAKernelCallExpr>(Call) && !Api)
    return;
  bool SyncCopy = Api && Api->Family == ApiFamily::Copy && Api->issuesOnLegacyStream() &&
                  !usesPerThreadDefaultStream(*Call, *Ctx);
  WorkCall W{Call,
             Api,
             reportLoc(Call->getBeginLoc(), SM),
             enclosingLoops(Call, *Ctx),
             !Api || issuesStreamWork(*Api),
             Api && (isExplicitSync(*Api) || SyncCopy)};
  auto [It, New] = ByFunction.try_emplace(Fn, FunctionCalls{Fn, {}});
  if (New)
    Order.push_back(Fn);
  It->second.Calls.push_back(W);
}

std::vector<FunctionCalls> FunctionWork::functions() const {
  std::vector<FunctionCalls> Out;
  for (const Decl *D : Order) {
    FunctionCalls F = ByFunction.at(D);
    const SourceManager &SM = Ctx->getSourceManager();
    std::stable_sort(F.Calls.begin(), F.Calls.end(), [&](const WorkCall &A, const WorkCall &B) {
      return SM.isBeforeInTranslationUnit(A.Loc, B.Loc) ||
             (A.Loc == B.Loc && SM.isBeforeInTranslationUnit(A.Call->getBeginLoc(), B.Call->getBeginLoc()));
    });
    Out.push_back(std::move(F));
  }
  return Out;
}

const WorkCall *FunctionCalls::workInLoop(const Stmt *Loop, const WorkCall *Except) const {
  for (const WorkCall &W : Calls)
    if (&W != Except && W.StreamWork &&
        std::find(W.Loops.begin(), W.Loops.end(), Loop) != W.Loops.end())
      return &W;
  return nullptr;
}

std::pair<const Stmt *, const WorkCall *> FunctionCalls::loopWithWork(const WorkCall &C) const {
  for (const Stmt *Loop : C.Loops)
    if (const WorkCall *W = workInLoop(Loop, &C))
      return {Loop, W};
  return {nullptr, nullptr};
}

const WorkCall *FunctionCalls::unsyncedWorkBefore(const WorkCall &C) const {
  const WorkCall *Last = nullptr;
  for (const WorkCall &W : Calls) {
    if (&W == &C)
      break;
    if (W.HostWaits)
      Last = nullptr; // what was issued before has been waited for
    else if (W.StreamWork)
      Last = &W;
  }
  return Last;
}

} // namespace syncwatch
