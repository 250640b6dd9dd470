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
  if (!Param || !Param->hasDefaultArg() || Param->hasUnparsedDefaultArg() || Param->hasUninstantiatedDefaultArg() ||
      !isa<FunctionDecl>(Param->getDeclContext()) || !isNullStream(Param->getDefaultArg(), Ctx))
    return nullptr;
  return Param;
}

DefaultedStreamParams::Key keyOf(const ParmVarDecl &P) {
  return {keyOf(cast<FunctionDecl>(P.getDeclContext())), P.getFunctionScopeIndex()};
}

class CallArguments : public RecursiveASTVisitor<CallArguments> {
public:
  using Table = std::map<std::pair<const FunctionDecl *, unsigned>, DefaultedStreamParams::Uses>;
  CallArguments(ASTContext &Ctx, Table &Out) : Ctx(Ctx), Out(Out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *F = C->getDirectCallee())
      note(F, C->arguments(), isa<CXXOperatorCallExpr>(C) && isa<CXXMethodDecl>(F) ? 1 : 0);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    note(C->getConstructor(), C->arguments(), 0);
    return true;
  }

private:
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
};

} // namespace

void DefaultedStreamParams::collect(ASTContext &Ctx) {
  Collected = true;
  CallArguments(Ctx, ByParam).TraverseAST(Ctx);
}

// Whether some call gives K a stream, directly or through parameters that forward to it. A
// parameter with no call in the unit counts as set: its callers may be anywhere.
bool DefaultedStreamParams::setSomewhere(const Key &K, std::set<Key> &Seen) const {
  if (!Seen.insert(K).second)
    return false;  // (a cycle of forwards adds nothing)
  auto It = ByParam.find(K);
  if (It == ByParam.end() || It->second.Set)
    return true;
  for (const Key &Outer : It->second.Forwarded)
    if (setSomewhere(Outer, Seen))
      return true;
  return false;
}

bool DefaultedStreamParams::onlyDefaulted(const Expr *Stream, ASTContext &Ctx) {
  const ParmVarDecl *Param = nullDefaultedParam(Stream, Ctx);
  if (!Param)
    return false;
  if (!Collected)
    collect(Ctx);
  std::set<Key> Seen;
  return !setSomewhere(keyOf(*Param), Seen);
}

} // namespace syncwatch
