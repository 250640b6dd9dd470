#include "SyncInLoopCheck.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace syncwatch {

void SyncInLoopCheck::onEndOfTranslationUnit() {
  ASTContext *Ctx = Work.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  for (const FunctionCalls &F : Work.functions()) {
    for (const WorkCall &C : F.Calls) {
      if (!C.Api || C.Api->Rule != RuleId::SyncInLoop)
        continue;
      auto [Loop, LoopWork] = F.loopWithWork(C);
      if (!Loop || !Reported.first(C.Loc))
        continue;
      bool Query = C.Api->Family == ApiFamily::StreamQuery;
      CheckDiagnostic D;
      D.Rule = RuleId::SyncInLoop;
      D.Level = C.Api->RuleSeverity;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      D.Message = "'" + std::string(C.Api->Name) + "' " +
                  (Query ? "polled inside a loop that issues stream work spins the host every iteration"
                         : "inside a loop that issues stream work stalls the host every iteration") +
                  "; " + std::string(C.Api->Fix);
      std::string Work = LoopWork->Api ? "'" + std::string(LoopWork->Api->Name) + "'"
                                       : "kernel '" + calleeName(*LoopWork->Call) + "'";
      D.Notes.push_back({LoopWork->Loc, Work + " issues work in the same loop here", {}});
      D.Evidence = {{"api", std::string(C.Api->Name)},
                    {"documented", std::string(documentedSyncText(C.Api->Documented))}};
      emit(D, SM);
    }
  }
}

} // namespace syncwatch
