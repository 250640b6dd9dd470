#include "CrossUnit.h"

#include "ErrorPaths.h"
#include "ReportedPath.h"
#include "UnitFacts.h"
#include "WorkTransfer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace syncwatch {

namespace {

// Where Loc is, as another unit's notes name it: an absolute path and a line.
SummaryPlace placeOf(SourceLocation Loc, const SourceManager &SM, std::string What) {
  SummaryPlace P;
  P.What = std::move(What);
  PresumedLoc PL = SM.getPresumedLoc(SM.getFileLoc(Loc));
  if (PL.isInvalid())
    return P;
  P.File = reportedPath(PL.getFilename(), SM);
  P.Line = PL.getLine();
  return P;
}

std::string nameOf(const WorkCall &W) {
  if (W.isLaunch())
    return "kernel '" + calleeName(*W.Call) + "'";
  return "'" + (W.Api ? std::string(W.Api->Name) : calleeName(*W.Call)) + "'";
}

// A function another unit can call by name and that this unit alone defines: external
// linkage, not inline (an inline or template function is defined, and analyzed, in every
// unit that uses it), not main.
bool exported(const FunctionDecl &FD) {
  return FD.isExternallyVisible() && !FD.isInlined() && !FD.isMain() && !FD.isDependentContext() &&
         FD.getTemplatedKind() == FunctionDecl::TK_NonTemplate;
}

// The callee's stream parameter whose argument names queue Q at call W, or -1.
int paramReceiving(const WorkCall &W, const Queue &Q, const WorkFlow &Flow, ASTContext &Ctx) {
  const FunctionDecl *Callee = W.ExternalCallee;
  if (!Callee || Q.K != Queue::Named)
    return -1;
  for (unsigned P = 0; P < Callee->getNumParams(); ++P)
    if (isStreamType(Callee->getParamDecl(P)->getType()) && argQueue(W, P, Ctx) == Q)
      return static_cast<int>(P);
  return -1;
}

} // namespace

UnitSummary summarizeUnit(const UnitFacts &Facts) {
  UnitSummary U;
  ASTContext *Ctx = Facts.context();
  if (!Ctx)
    return U;
  const SourceManager &SM = Ctx->getSourceManager();
  const WorkFlow &Flow = Facts.flow();
  for (const FunctionCalls &F : Facts.functions()) {
    const auto *FD = dyn_cast<FunctionDecl>(F.Function);
    if (!FD)
      continue;
    // A function the flow skipped (it reaches no CUDA, as far as this unit knows: it calls
    // only other units' functions) is still listed, trivial: other units' calls of it with
    // work in flight then bring it into the next round, where that work is passed on to
    // what it calls (a chain of files, docs/ci.md).
    if (exported(*FD)) {
      ExportedFunction E;
      E.Usr = usrOf(FD);
      E.Name = FD->getQualifiedNameAsString();
      E.Def = placeOf(FD->getLocation(), SM, "'" + E.Name + "'");
      if (const FunctionSummary *S = Flow.summary(FD)) {
        if (S->LeavesWork) {
          E.LeftBy = placeOf(S->LeavesWork->Loc, SM, nameOf(*S->LeavesWork));
          E.LeftParam = S->LeftOnParam;
          E.LeftOn = S->LeftOnParam >= 0              ? ExportedFunction::Left::OnParam
                     : S->LeftOn.K == Queue::Legacy    ? ExportedFunction::Left::Legacy
                     : S->LeftOn.K == Queue::PerThread ? ExportedFunction::Left::PerThread
                                                       : ExportedFunction::Left::Unknown;
        }
        E.DrainsAll = S->DrainsAll;
        E.DrainsParams = S->DrainsParams;
        if (S->Waits)
          E.Waits = placeOf(S->Waits->Loc, SM, nameOf(*S->Waits));
      }
      if (!E.Usr.empty())
        U.Functions.push_back(std::move(E));
    }
    for (const WorkCall &W : F.Calls) {
      if (!W.ExternalCallee)
        continue;
      ExternalCall C;
      C.Usr = usrOf(W.ExternalCallee);
      if (C.Usr.empty())
        continue;
      C.Site = placeOf(W.Loc, SM, "'" + calleeName(*W.Call) + "'");
      // A call on an error path leaves the callee nothing worth a warning (ErrorPaths.h).
      if (const CallFlow *At = Flow.at(W); At && !onErrorPath(W.Call, *Ctx)) {
        for (const Pending &P : At->InFlight)
          C.InFlight.push_back({paramReceiving(W, Flow.queueOf(*P.Work), Flow, *Ctx),
                                placeOf(P.Work->Loc, SM, nameOf(*P.Work))});
        // Work this function's own callers left: passed on, with the call it came through
        // (the callee's notes then walk the chain back to the work).
        if (At->Caller == CallerWork::Known && At->CallerPending && At->CallerSite) {
          ExternalCall::Work Passed{-1, placeOf(At->CallerPending->Loc, SM, nameOf(*At->CallerPending)), {}};
          Passed.Via.push_back(placeOf(At->CallerSite->Loc, SM, "'" + calleeName(*At->CallerSite->Call) + "'"));
          C.InFlight.push_back(std::move(Passed));
        } else if (At->Caller == CallerWork::Known && At->CallerElsewhereWork && At->CallerElsewhere) {
          ExternalCall::Work Passed{-1, At->CallerElsewhereWork->Issued, At->CallerElsewhereWork->Via};
          Passed.Via.push_back(At->CallerElsewhere->Site);
          if (At->CallerSite)  // through a helper of this unit
            Passed.Via.push_back(placeOf(At->CallerSite->Loc, SM, "'" + calleeName(*At->CallerSite->Call) + "'"));
          if (Passed.Via.size() > kMaxVia)  // the nearest calls are the ones worth reading
            Passed.Via.erase(Passed.Via.begin(), Passed.Via.end() - kMaxVia);
          C.InFlight.push_back(std::move(Passed));
        }
      }
      U.Calls.push_back(std::move(C));
    }
  }
  return U;
}

} // namespace syncwatch
