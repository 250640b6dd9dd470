#include "RunningCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace syncwatch {
namespace {

// Every function named by code outside template patterns: instantiations, ordinary
// functions, global initializers. Implicit code too (range-for's begin/end, conversions).
class ReferencedFunctions : public RecursiveASTVisitor<ReferencedFunctions> {
public:
  explicit ReferencedFunctions(std::set<const FunctionDecl *> &Out) : Out(Out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (const auto *F = dyn_cast_or_null<FunctionDecl>(D); F && F->isDependentContext())
      return true;  // a template's own body: only its instantiations run
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return note(E->getDecl()); }
  bool VisitMemberExpr(MemberExpr *E) { return note(E->getMemberDecl()); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) { return note(E->getConstructor()); }

private:
  bool note(const Decl *D) {
    if (const auto *F = dyn_cast_or_null<FunctionDecl>(D))
      Out.insert(F->getCanonicalDecl());
    return true;
  }
  std::set<const FunctionDecl *> &Out;
};

} // namespace

bool RunningCode::neverCalledHere(const FunctionDecl &F, ASTContext &Ctx) {
  if (F.isTemplateInstantiation() || F.isDependentContext() || F.isMain() || F.hasAttr<UsedAttr>())
    return false;
  const auto *Method = dyn_cast<CXXMethodDecl>(&F);
  if (Method && (Method->getParent()->isLambda() || Method->isVirtual() || isa<CXXDestructorDecl>(Method)))
    return false;  // (called through a lambda object, a vtable, or at a scope's end)
  if (!F.isInlined() && F.isExternallyVisible())
    return false;  // another unit may call it
  // Only a header's: the unit's own file is the code its author meant to run, and a snippet
  // linted alone (a class whose methods a later edit will call) is judged as written.
  if (Ctx.getSourceManager().isInMainFile(Ctx.getSourceManager().getExpansionLoc(F.getLocation())))
    return false;
  if (!F.isReferenced())
    return true;
  if (!Built) {
    Built = true;
    ReferencedFunctions(Referenced).TraverseAST(Ctx);
  }
  return !Referenced.count(F.getCanonicalDecl());
}

} // namespace syncwatch
