#include "DefaultedStreamParams.h"

#include "CudaCalls.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace syncwatch {
namespace {

// The function a call's parameters belong to, the same for every instantiation and
// redeclaration of it.
const FunctionDecl *keyOf(const FunctionDecl *F) {
  if (const FunctionDecl *Pattern = F->getTemplateInstantiationPattern())
    F = Pattern;
  return F->getCanonicalDecl();
}

bool isNullStream(const Expr *E, ASTContext &Ctx) {
  StreamArgKind K = classifyStreamArg(E, Ctx);
  return K == StreamArgKind::Null || K == StreamArgKind::Omitted || K == StreamArgKind::Legacy ||
         K == StreamArgKind::FlagAsStream;
}

// A parameter of the enclosing function that defaults to a null stream, as an argument.
const ParmVarDecl *nullDefaultedParam(const Expr *E, ASTContext &Ctx) {
  const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  if (!Param || !Param->hasDefaultArg() || Param->hasUnparsedDefaultArg() || !isa<FunctionDecl>(Param->getDeclContext()))
    return nullptr;
  // (a class template's member keeps its default uninstantiated until a call uses it)
  const Expr *Default =
      Param->hasUninstantiatedDefaultArg() ? Param->getUninstantiatedDefaultArg() : Param->getDefaultArg();
  return Default && !Default->isValueDependent() && isNullStream(Default, Ctx) ? Param : nullptr;
}

DefaultedStreamParams::Key keyOf(const ParmVarDecl &P) {
  return {keyOf(cast<FunctionDecl>(P.getDeclContext())), P.getFunctionScopeIndex()};
}

// A member of stream type (CudaCalls.h's isStreamType) that an expression names.
const FieldDecl *streamField(const Expr *E) {
  const auto *M = E ? dyn_cast<MemberExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const auto *F = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
  return F && isStreamType(F->getType()) ? F : nullptr;
}

class CallArguments : public RecursiveASTVisitor<CallArguments> {
public:
  using Table = std::map<std::pair<const FunctionDecl *, unsigned>, DefaultedStreamParams::Uses>;
  using Fields = std::map<const FieldDecl *, DefaultedStreamParams::Uses>;
  CallArguments(ASTContext &Ctx, Table &Out, Fields &FieldOut) : Ctx(Ctx), Out(Out), FieldOut(FieldOut) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  // A template's own body is not code that runs: its instantiations are (visited above). Its
  // calls would forward to parameters of a pattern nothing calls (CUTLASS's primary Gemm,
  // whose ColumnMajor partial specialization is what runs).
  bool TraverseDecl(Decl *D) {
    const auto *F = dyn_cast_or_null<FunctionDecl>(D);
    if (F && F->isDependentContext()) {
      ++InTemplate;
      bool Go = RecursiveASTVisitor::TraverseDecl(D);
      --InTemplate;
      return Go;
    }
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitCXXConstructorDecl(CXXConstructorDecl *C) {
    if (InTemplate)
      return true;
    for (const CXXCtorInitializer *Init : C->inits())
      if (const FieldDecl *F = Init->getMember(); F && Init->getInit() && isStreamType(F->getType()))
        write(F, Init->getInit());
    return true;
  }
  bool VisitFieldDecl(FieldDecl *F) {
    if (isStreamType(F->getType()) && F->hasInClassInitializer() && F->getInClassInitializer())
      write(F, F->getInClassInitializer());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (!InTemplate && B->isAssignmentOp())
      if (const FieldDecl *F = streamField(B->getLHS()))
        write(F, B->isCompoundAssignmentOp() ? nullptr : B->getRHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (!InTemplate && U->getOpcode() == UO_AddrOf)
      if (const FieldDecl *F = streamField(U->getSubExpr()))
        write(F, nullptr);  // cudaStreamCreate(&member), or handed on: any stream
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (InTemplate)
      return true;
    if (const FunctionDecl *F = C->getDirectCallee())
      note(F, C->arguments(), isa<CXXOperatorCallExpr>(C) && isa<CXXMethodDecl>(F) ? 1 : 0);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    if (InTemplate)
      return true;
    note(C->getConstructor(), C->arguments(), 0);
    return true;
  }

private:
  // A write of Value (nullptr: unknown) into member F.
  void write(const FieldDecl *F, const Expr *Value) {
    DefaultedStreamParams::Uses &U = FieldOut[F->getCanonicalDecl()];
    U.Defaulted = true;
    if (const auto *Init = Value ? dyn_cast<CXXDefaultInitExpr>(Value->IgnoreImplicit()) : nullptr)
      Value = Init->getExpr();
    if (!Value)
      U.Set = true;
    else if (const ParmVarDecl *Outer = nullDefaultedParam(Value, Ctx))
      U.Forwarded.push_back(keyOf(*Outer));
    else if (!isNullStream(Value, Ctx))
      U.Set = true;
  }
  // Skip: an operator() call's first argument is the object.
  template <typename Args> void note(const FunctionDecl *F, Args Arguments, unsigned Skip) {
    unsigned I = 0;
    for (const Expr *A : Arguments) {
      if (I >= Skip) {
        unsigned Param = I - Skip;
        if (Param < F->getNumParams() && F->getParamDecl(Param)->hasDefaultArg()) {
          DefaultedStreamParams::Uses &U = Out[{keyOf(F), Param}];
          if (isa<CXXDefaultArgExpr>(A->IgnoreImplicit()))
            U.Defaulted = true;
          else if (const ParmVarDecl *Outer = nullDefaultedParam(A, Ctx))
            U.Forwarded.push_back(keyOf(*Outer));
          else if (!isNullStream(A, Ctx))
            U.Set = true;
        }
      }
      ++I;
    }
  }
  ASTContext &Ctx;
  Table &Out;
  Fields &FieldOut;
  unsigned InTemplate = 0;
};

} // namespace

void DefaultedStreamParams::collect(ASTContext &Ctx) {
  Collected = true;
  CallArguments(Ctx, ByParam, ByField).TraverseAST(Ctx);
}

// Whether some call gives K a stream, directly or through parameters that forward to it. A
// parameter with no call in the unit counts as set: its callers may be anywhere - but those
// of an inline function this unit never references compile it themselves.
bool DefaultedStreamParams::setSomewhere(const Key &K, std::set<Key> &Seen, RunningCode &Running,
                                         ASTContext &Ctx) const {
  if (!Seen.insert(K).second)
    return false;  // (a cycle of forwards adds nothing)
  auto It = ByParam.find(K);
  if (It == ByParam.end())  // (unless nothing here calls its function: no caller runs from here)
    return !Running.neverCalledHere(*K.first, Ctx);
  if (It->second.Set)
    return true;
  for (const Key &Outer : It->second.Forwarded)
    if (setSomewhere(Outer, Seen, Running, Ctx))
      return true;
  return false;
}

bool DefaultedStreamParams::onlyDefaulted(const Expr *Stream, ASTContext &Ctx, RunningCode &Running) {
  const ParmVarDecl *Param = nullDefaultedParam(Stream, Ctx);
  const FieldDecl *Field = Param ? nullptr : streamField(Stream);
  if (!Param && !Field)
    return false;
  if (!Collected)
    collect(Ctx);
  std::set<Key> Seen;
  if (Param)
    return !setSomewhere(keyOf(*Param), Seen, Running, Ctx);
  auto It = ByField.find(Field->getCanonicalDecl());
  if (It == ByField.end() || !It->second.Defaulted || It->second.Set)
    return false;  // (never written here: set elsewhere, by code this unit does not see)
  for (const Key &K : It->second.Forwarded)
    if (setSomewhere(K, Seen, Running, Ctx))
      return false;
  return true;
}

} // namespace syncwatch
