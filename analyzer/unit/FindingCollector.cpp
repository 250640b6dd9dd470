#include "FindingCollector.h"

#include "../core/ReportedPath.h"

#include "clang/Lex/Lexer.h"

#include <tuple>

using namespace clang;

namespace syncwatch {

SourceSpan spanOf(SourceLocation Loc, CharSourceRange Range, const SourceManager &SM, const LangOptions &LO) {
  SourceSpan S;
  if (Loc.isInvalid())
    return S;
  PresumedLoc P = SM.getPresumedLoc(Loc);
  if (P.isInvalid())
    return S;
  // A header found through a relative -I is named relative to the entry's directory (the
  // working directory of this tool's own file system, not the process's), and one found
  // through `-I<root>/src/../include` with its `..`: one name per file (ReportedPath.h).
  S.File = reportedPath(P.getFilename(), SM);
  S.Line = P.getLine();
  S.Column = P.getColumn();
  if (Range.isValid()) {
    SourceLocation End = Range.getEnd();
    if (Range.isTokenRange())
      End = End.getLocWithOffset(Lexer::MeasureTokenLength(End, SM, LO));
    PresumedLoc E = SM.getPresumedLoc(End);
    if (E.isValid()) {
      S.EndLine = E.getLine();
      S.EndColumn = E.getColumn();
    }
  }
  return S;
}

FixIt fixOf(const FixItHint &H, const SourceManager &SM, const LangOptions &LO) {
  FixIt F;
  F.Where = spanOf(H.RemoveRange.getBegin(), H.RemoveRange, SM, LO);
  if (!H.RemoveRange.isValid() ||
      (H.RemoveRange.isCharRange() && H.RemoveRange.getBegin() == H.RemoveRange.getEnd())) {
    F.Where.EndLine = F.Where.Line;
    F.Where.EndColumn = F.Where.Column;
  }
  F.Text = H.CodeToInsert;
  return F;
}

void FindingCollector::emit(const CheckDiagnostic &D, const SourceManager &SM) {
  static const LangOptions Default;
  const LangOptions &Opts = LO ? *LO : Default;
  Finding F;
  F.Rule = std::string(ruleInfo(D.Rule).Id);
  F.Level = D.Level;
  F.Where = spanOf(D.Loc, D.Range, SM, Opts);
  if (F.Where.known() && NoLint.suppressed(F.Where.File, F.Where.Line, F.Rule))
    return;
  F.Message = D.Message;
  for (const FixItHint &H : D.Fixes)
    F.Fixes.push_back(fixOf(H, SM, Opts));
  for (const CheckNote &N : D.Notes) {
    FindingNote Note{spanOf(N.Loc, CharSourceRange(), SM, Opts), N.Message, {}};
    if (N.Loc.isInvalid() && !N.File.empty())
      Note.Where = SourceSpan{N.File, N.Line, 1, 0, 0};  // in another unit (CrossUnit.h)
    for (const FixItHint &H : N.Fixes)
      Note.SuggestedFixes.push_back(fixOf(H, SM, Opts));
    F.Notes.push_back(std::move(Note));
  }
  F.Evidence = D.Evidence;
  if (Unit.Ctx) {
    if (!Functions || FunctionsOf != Unit.Generation) {
      Functions = std::make_unique<EnclosingFunctions>(*Unit.Ctx);
      FunctionsOf = Unit.Generation;
    }
    if (const FunctionName *Fn = Functions->at(D.Loc)) {
      F.Function = Fn->Qualified;
      F.MangledFunction = Fn->Mangled;
    }
    if (!Macros || MacrosOf != Unit.Generation) {
      Macros = std::make_unique<MacroInvocations>(*Unit.Ctx);
      MacrosOf = Unit.Generation;
    }
    std::tie(F.ContextLine, F.ContextEndLine) = Macros->linesAround(D.Loc);
  }
  Findings.push_back(std::move(F));
}

} // namespace syncwatch
