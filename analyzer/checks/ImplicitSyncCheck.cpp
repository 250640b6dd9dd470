#include "ImplicitSyncCheck.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace syncwatch {

static std::string workName(const WorkCall &W) {
  return W.Api ? "'" + std::string(W.Api->Name) + "'" : "kernel '" + calleeName(*W.Call) + "'";
}

// cudaFree(nullptr) returned in 0.003 ms on the H200: freeing nothing waits for nothing.
static bool freesNothing(const WorkCall &C, ASTContext &Ctx) {
  bool IsFree = C.Api->Family == ApiFamily::DeviceFree || C.Api->Family == ApiFamily::HostFree;
  if (!IsFree || C.Call->getNumArgs() == 0)
    return false;
  const Expr *Arg = C.Call->getArg(0);
  return !Arg->isValueDependent() &&
         Arg->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
}

void ImplicitSyncCheck::onEndOfTranslationUnit() {
  ASTContext *Ctx = Work.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  for (const FunctionCalls &F : Work.functions()) {
    for (const WorkCall &C : F.Calls) {
      if (!C.Api || C.Api->Rule != RuleId::ImplicitSync || freesNothing(C, *Ctx))
        continue;
      auto [Loop, LoopWork] = F.loopWithWork(C);
      const WorkCall *Before = Loop ? nullptr : F.unsyncedWorkBefore(C);
      const WorkCall *InFlight = Loop ? LoopWork : Before;
      if (!InFlight || !Reported.first(C.Loc))
        continue;
      bool Measured = C.Api->Measured == MeasuredSync::BlocksDevice;
      std::string Name = "'" + std::string(C.Api->Name) + "'";
      CheckDiagnostic D;
      D.Rule = RuleId::ImplicitSync;
      D.Level = C.Api->RuleSeverity;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      std::string Where = Loop ? "inside a loop that issues stream work"
                               : "after stream work with no synchronization in between";
      if (Measured)
        D.Message = Name + " waits until the whole device is idle (measured on CUDA 13, H200), " +
                    Where + "; " + std::string(C.Api->Fix);
      else
        D.Message = Name + " is documented to synchronize the device, " + Where +
                    " (it did not block on CUDA 13 / H200); " + std::string(C.Api->Fix);
      D.Notes.push_back({InFlight->Loc,
                         workName(*InFlight) + " issues stream work here that may still be running",
                         {}});
      D.Evidence = {{"api", std::string(C.Api->Name)},
                    {"documented", std::string(documentedSyncText(C.Api->Documented))},
                    {"measured", std::string(measuredSyncText(C.Api->Measured))},
                    {"evidence", std::string(evidenceName(C.Api->Proof))}};
      emit(D, SM);
    }
  }
}

} // namespace syncwatch
