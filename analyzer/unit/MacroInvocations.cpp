#include "MacroInvocations.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace syncwatch {

using namespace clang;

namespace {

// The invocations that expand to a call: only those can hold a finding.
class Calls : public RecursiveASTVisitor<Calls> {
public:
  Calls(const SourceManager &SM, std::vector<CharSourceRange> &Out) : SM(SM), Out(Out) {}
  bool VisitCallExpr(CallExpr *E) {
    SourceLocation B = E->getBeginLoc();
    if (B.isMacroID() && !SM.isInSystemHeader(SM.getExpansionLoc(B)))
      Out.push_back(SM.getExpansionRange(B));
    return true;
  }

private:
  const SourceManager &SM;
  std::vector<CharSourceRange> &Out;
};

} // namespace

MacroInvocations::MacroInvocations(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
  std::vector<CharSourceRange> Expansions;
  Calls(SM, Expansions).TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const CharSourceRange &R : Expansions) {
    auto B = SM.getDecomposedLoc(R.getBegin());
    auto E = SM.getDecomposedLoc(R.getEnd());
    if (B.first.isInvalid() || B.first != E.first || E.second < B.second)
      continue;
    PresumedLoc PB = SM.getPresumedLoc(R.getBegin()), PE = SM.getPresumedLoc(R.getEnd());
    if (PB.isInvalid() || PE.isInvalid() || PE.getLine() <= PB.getLine())
      continue;  // one line: the finding's own line is the invocation's
    Ranges.push_back({B.first, B.second, E.second, PB.getLine(), PE.getLine()});
  }
}

std::pair<unsigned, unsigned> MacroInvocations::linesAround(SourceLocation Loc) const {
  if (Loc.isInvalid() || Ranges.empty())
    return {0, 0};
  auto [File, Offset] = SM.getDecomposedLoc(SM.getFileLoc(Loc));
  const Range *Best = nullptr;  // the outermost: what the line table names
  for (const Range &R : Ranges)
    if (R.File == File && R.Begin <= Offset && Offset <= R.End && (!Best || R.End - R.Begin > Best->End - Best->Begin))
      Best = &R;
  return Best ? std::make_pair(Best->FirstLine, Best->LastLine) : std::make_pair(0u, 0u);
}

} // namespace syncwatch
