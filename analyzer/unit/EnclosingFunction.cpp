#include "EnclosingFunction.h"

#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace syncwatch {

using namespace clang;

namespace {

// Function definitions with their own bodies. Template instantiations share their
// pattern's range (the pattern names them); lambdas are not visited as functions of their
// own (the runtime names an inlined lambda's call by the function it is in).
class Definitions : public RecursiveASTVisitor<Definitions> {
public:
  explicit Definitions(std::vector<const FunctionDecl *> &Out) : Out(Out) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (const auto *M = dyn_cast<CXXMethodDecl>(FD); M && M->getParent()->isLambda())
      return true;
    if (FD->doesThisDeclarationHaveABody())
      Out.push_back(FD);
    return true;
  }

private:
  std::vector<const FunctionDecl *> &Out;
};

} // namespace

EnclosingFunctions::EnclosingFunctions(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
  std::vector<const FunctionDecl *> Defs;
  Definitions(Defs).TraverseDecl(Ctx.getTranslationUnitDecl());
  ASTNameGenerator Mangler(Ctx);
  for (const FunctionDecl *FD : Defs) {
    auto B = SM.getDecomposedExpansionLoc(FD->getBeginLoc());
    auto E = SM.getDecomposedExpansionLoc(FD->getEndLoc());
    if (B.first.isInvalid() || B.first != E.first || E.second < B.second)
      continue;
    FunctionName N;
    N.Qualified = FD->getQualifiedNameAsString();
    // A template's pattern has no symbol; its instantiations each have their own.
    if (!FD->isTemplated())
      N.Mangled = Mangler.getName(FD);
    Ranges.push_back({B.first, B.second, E.second, std::move(N)});
  }
}

const FunctionName *EnclosingFunctions::at(SourceLocation Loc) const {
  if (Loc.isInvalid())
    return nullptr;
  auto [File, Offset] = SM.getDecomposedExpansionLoc(Loc);
  const Range *Best = nullptr;
  for (const Range &R : Ranges)
    if (R.File == File && R.Begin <= Offset && Offset <= R.End && (!Best || R.End - R.Begin < Best->End - Best->Begin))
      Best = &R;
  return Best ? &Best->Name : nullptr;
}

} // namespace syncwatch
