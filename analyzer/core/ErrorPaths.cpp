#include "ErrorPaths.h"

#include "CudaCalls.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace syncwatch {

namespace {

// The status types of the CUDA runtime and driver and of the libraries on top of them; each
// has success as 0 (cudaSuccess, CUDA_SUCCESS, CUBLAS_STATUS_SUCCESS, ncclSuccess, ...).
bool isStatusType(QualType T) {
  T = T.getCanonicalType();
  const auto *E = T->getAs<EnumType>();
  if (!E)
    return false;
  StringRef Name = E->getDecl()->getName();
  if (Name.empty())
    if (const TypedefNameDecl *TD = E->getDecl()->getTypedefNameForAnonDecl())
      Name = TD->getName();
  return llvm::StringSwitch<bool>(Name)
      .Cases("cudaError", "cudaError_enum", "cublasStatus_t", "cusolverStatus_t", "cufftResult_t", true)
      .Cases("cusparseStatus_t", "curandStatus", "ncclResult_t", "cudnnStatus_t", "nvrtcResult", true)
      .Default(false);
}

bool isStatus(const Expr *E) { return E && isStatusType(E->IgnoreParenImpCasts()->getType()); }

// A status's success value: 0 (CudaCalls.h's constantInt evaluates enumerators too).
bool isZero(const Expr *E, ASTContext &Ctx) { return constantInt(E, Ctx) == 0; }

// `A op B` with one side a status and the other its success value.
bool comparesStatus(const BinaryOperator *B, ASTContext &Ctx) {
  return (isStatus(B->getLHS()) && isZero(B->getRHS(), Ctx)) || (isStatus(B->getRHS()) && isZero(B->getLHS(), Ctx));
}

// (C++ code compares enums through overloaded operators only when someone defined them.)
const BinaryOperator *binary(const Expr *E) { return dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts()); }

} // namespace

bool testsForError(const Expr *Condition, ASTContext &Ctx) {
  if (!Condition)
    return false;
  const Expr *C = Condition->IgnoreParens();
  // `if (rc)`, `if (cudaMalloc(...))`: a status tested as a truth value.
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(C); Cast && Cast->getCastKind() == CK_IntegralToBoolean)
    return isStatus(Cast->getSubExpr());
  if (const BinaryOperator *B = binary(C)) {
    if (B->getOpcode() == BO_NE)
      return comparesStatus(B, Ctx);
    if (B->getOpcode() == BO_LAnd)
      return testsForError(B->getLHS(), Ctx) || testsForError(B->getRHS(), Ctx);
    if (B->getOpcode() == BO_LOr)
      return testsForError(B->getLHS(), Ctx) && testsForError(B->getRHS(), Ctx);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(C->IgnoreParenImpCasts()); U && U->getOpcode() == UO_LNot)
    return testsForSuccess(U->getSubExpr(), Ctx);
  return false;
}

bool testsForSuccess(const Expr *Condition, ASTContext &Ctx) {
  if (!Condition)
    return false;
  const Expr *C = Condition->IgnoreParenImpCasts();
  if (const BinaryOperator *B = binary(C))
    return B->getOpcode() == BO_EQ && comparesStatus(B, Ctx);
  if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
    return isStatus(U->getSubExpr());
  return false;
}

// A statement that leaves the function abnormally: a throw, or a call of a noreturn function
// (abort, exit, std::terminate, the program's own fatal-error helpers declared noreturn).
static bool exitsAbnormally(const Stmt *S) {
  if (const auto *E = dyn_cast<Expr>(S))
    S = E->IgnoreImplicit();
  if (isa<CXXThrowExpr>(S))
    return true;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      return FD->isNoReturn();
  return false;
}

// Child is followed, in the block P, by a statement that leaves the function abnormally.
static bool followedByAbnormalExit(const CompoundStmt &Block, const Stmt *Child) {
  bool After = false;
  for (const Stmt *Sibling : Block.body()) {
    if (After && exitsAbnormally(Sibling))
      return true;
    After |= Sibling == Child;
  }
  return false;
}

bool onErrorPath(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Node = DynTypedNode::create(*S);
  // Leaving a loop: a block after it that throws ends the function once the loop is done,
  // not each iteration.
  bool InLoop = false;
  for (int Depth = 0; Depth < 256; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return false;
    const DynTypedNode &P = Parents[0];
    if (P.get<FunctionDecl>() || P.get<LambdaExpr>() || P.get<BlockDecl>())
      return false;
    // `{ cudaDeviceSynchronize(); throw std::runtime_error(msg); }` (AMGX's FatalError, in
    // the default of a configuration switch): the block gives up; its wait runs once.
    if (const auto *Block = P.get<CompoundStmt>(); Block && !InLoop)
      if (const Stmt *Child = Node.get<Stmt>(); Child && followedByAbnormalExit(*Block, Child))
        return true;
    if (P.get<ForStmt>() || P.get<WhileStmt>() || P.get<DoStmt>() || P.get<CXXForRangeStmt>())
      InLoop = true;
    if (const auto *If = P.get<IfStmt>()) {
      const Stmt *Child = Node.get<Stmt>();
      if (Child && Child == If->getThen() && testsForError(If->getCond(), Ctx))
        return true;
      if (Child && Child == If->getElse() && testsForSuccess(If->getCond(), Ctx))
        return true;
    }
    Node = P;
  }
  return false;
}

} // namespace syncwatch
