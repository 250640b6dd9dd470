#include "ImplicitSyncCheck.h"
#include "FlowNotes.h"

#include "../core/ErrorPaths.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace syncwatch {

// cudaFree(nullptr) returned in 0.003 ms on the H200: freeing nothing waits for nothing.
static bool freesNothing(const WorkCall &C, ASTContext &Ctx) {
  bool IsFree = C.Api->Family == ApiFamily::DeviceFree || C.Api->Family == ApiFamily::HostFree;
  if (!IsFree || C.Call->getNumArgs() == 0)
    return false;
  const Expr *Arg = C.Call->getArg(0);
  return !Arg->isValueDependent() &&
         Arg->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
}

// The work to name in the finding: one still running on every path if there is one.
static const Pending *firstPending(const std::vector<Pending> &InFlight) {
  for (const Pending &P : InFlight)
    if (P.Must)
      return &P;
  return InFlight.empty() ? nullptr : &InFlight.front();
}

void ImplicitSyncCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ReportedOnce Reported;  // template instantiations repeat a function's calls
  ASTContext *Ctx = Facts.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  unjudgedNotes(Facts, RuleId::ImplicitSync, Sink);
  for (const FunctionCalls &F : Facts.functions()) {
    for (const WorkCall &C : F.Calls) {
      if (!C.Api || C.Api->Rule != RuleId::ImplicitSync || freesNothing(C, *Ctx) || onErrorPath(C.Call, *Ctx))
        continue;
      const CallFlow *Flow = Facts.flow().at(C);
      // Only work we can see counts: a function whose callers are not in this unit is
      // silent rather than a guess.
      bool Measured = C.Api->Measured == MeasuredSync::BlocksDevice;
      // A documented-only sync (it returned at once when measured) is worth a note only
      // next to this function's own work, not for what some caller might have left.
      if (!Flow)
        continue;
      const std::vector<Pending> &InFlight = Flow->InFlight;
      bool Any = !InFlight.empty() || Flow->Caller == CallerWork::Known;
      if (!Any || (!Measured && InFlight.empty()) || !Reported.first(C.Loc))
        continue;
      const Pending *P = firstPending(InFlight);
      std::string Name = "'" + std::string(C.Api->Name) + "'";
      std::string Where = P ? (P->Must ? "while stream work is still running"
                                       : "while stream work may still be running")
                            : "while its caller's stream work may still be running";
      CheckDiagnostic D;
      D.Rule = RuleId::ImplicitSync;
      D.Level = C.Api->RuleSeverity;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      if (Measured)
        D.Message = Name + " waits until the whole device is idle (measured on CUDA 13, H200), " +
                    Where + "; " + std::string(C.Api->Fix);
      else
        D.Message = Name + " is documented to synchronize the device, " + Where +
                    " (it did not block on CUDA 13 / H200); " + std::string(C.Api->Fix);
      if (P)
        D.Notes.push_back(pendingNote(*P, C, SM));
      else
        callerNotes(*Flow, D.Notes);
      D.Evidence = {{"api", std::string(C.Api->Name)},
                    {"documented", std::string(documentedSyncText(C.Api->Documented))},
                    {"measured", std::string(measuredSyncText(C.Api->Measured))},
                    {"evidence", std::string(evidenceName(C.Api->Proof))},
                    {"inFlight", P ? (P->Must ? "must" : "may") : "caller"}};
      Sink.emit(D, SM);
    }
  }
}

} // namespace syncwatch
