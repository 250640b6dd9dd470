#include "UnitScope.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <set>

using namespace clang;

namespace syncwatch {

std::vector<Decl *> unitScopeDecls(ASTContext &Ctx) {
  // A traversal scope narrower than the translation unit is set: its declarations.
  const std::vector<Decl *> &Scope = Ctx.getTraversalScope();
  if (!(Scope.size() == 1 && isa<TranslationUnitDecl>(Scope.front())))
    return Scope;
  const DeclContext *TU = Ctx.getTranslationUnitDecl();
  return std::vector<Decl *>(TU->decls_begin(), TU->decls_end());
}

namespace {

// The functions a declaration's code calls, constructs, or names (a call's callee is a
// DeclRefExpr or a MemberExpr; a function passed as a callback too). Lambda bodies are
// visited (RecursiveASTVisitor's default).
class CalleeCollector : public RecursiveASTVisitor<CalleeCollector> {
public:
  explicit CalleeCollector(std::vector<const FunctionDecl *> &Out) : Out(Out) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
      Out.push_back(F);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *F = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      Out.push_back(F);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    Out.push_back(E->getConstructor());
    return true;
  }

private:
  std::vector<const FunctionDecl *> &Out;
};

} // namespace

std::vector<Decl *> scopeWithHelpers(ASTContext &Ctx, std::vector<Decl *> Parsed, std::size_t MaxHelpers) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<const Decl *> Added;
  std::vector<const FunctionDecl *> Callees;
  CalleeCollector Collect(Callees);
  std::size_t Helpers = 0;
  // Parsed grows as helpers are found: each is searched for its own callees in turn.
  for (std::size_t I = 0; I < Parsed.size() && Helpers < MaxHelpers; ++I) {
    Callees.clear();
    Collect.TraverseDecl(Parsed[I]);
    for (const FunctionDecl *F : Callees) {
      const FunctionDecl *Def = nullptr;
      // Only what the preamble holds: the declarations parsed now are in Parsed already.
      if (!F->hasBody(Def) || !Def->isFromASTFile() || !Added.insert(Def).second)
        continue;
      if (Def->getLocation().isInvalid() || SM.isInSystemHeader(SM.getFileLoc(Def->getLocation())))
        continue;
      Parsed.push_back(const_cast<FunctionDecl *>(Def));
      if (++Helpers == MaxHelpers)
        break;
    }
  }
  return Parsed;
}

} // namespace syncwatch
