#include "SyncInLoopCheck.h"
#include "FlowNotes.h"

#include "../core/ErrorPaths.h"

#include "clang/AST/ASTContext.h"

#include <algorithm>

using namespace clang;

namespace syncwatch {

// The work this wait drains that a loop around it issued: the stall the loop pays each
// iteration. Returns that work and the loop, or nulls.
static std::pair<const Pending *, const Stmt *> loopWorkWaited(const WorkCall &C, const CallFlow &F) {
  for (const Stmt *Loop : C.Loops)  // innermost first
    for (const Pending &P : F.Waited)
      if (std::find(P.Work->Loops.begin(), P.Work->Loops.end(), Loop) != P.Work->Loops.end())
        return {&P, Loop};
  return {nullptr, nullptr};
}

void SyncInLoopCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ReportedOnce Reported;  // template instantiations repeat a function's calls
  ASTContext *Ctx = Facts.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  unjudgedNotes(Facts, RuleId::SyncInLoop, Sink);
  for (const FunctionCalls &F : Facts.functions()) {
    for (const WorkCall &C : F.Calls) {
      if (C.Loops.empty())
        continue;
      const FunctionSummary *Helper = C.Helper ? Facts.flow().summary(C.Helper) : nullptr;
      bool Sync = C.Api && C.Api->Rule == RuleId::SyncInLoop;
      // A function of another unit that waits (its summary, syncwatch-lint's second phase).
      const SummaryPlace *Elsewhere = C.External && C.External->Waits ? &*C.External->Waits : nullptr;
      if (!Sync && !(Helper && Helper->Waits) && !Elsewhere)
        continue;
      // A wait in the branch taken when a CUDA call failed (AMGX's cudaCheckError() syncs
      // there before it throws) runs once, not every iteration.
      if (onErrorPath(C.Call, *Ctx))
        continue;
      const CallFlow *Flow = Facts.flow().at(C);
      if (!Flow)
        continue;
      auto [LoopWork, Loop] = loopWorkWaited(C, *Flow);
      // A wait on an event the loop records later waits for an earlier iteration (double
      // buffering): the GPU still holds this iteration's work.
      if (!LoopWork || Facts.flow().waitsOnEarlierIteration(F, C, Loop) || !Reported.first(C.Loc))
        continue;
      if (Elsewhere) {
        CheckDiagnostic D;
        D.Rule = RuleId::SyncInLoop;
        D.Level = Severity::Warning;
        D.Loc = C.Loc;
        D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
        D.Message = "'" + calleeName(*C.Call) + "' waits for the GPU (" + Elsewhere->What +
                    ", in another file) inside a loop that issues stream work, which stalls the host every "
                    "iteration; order GPU work with events and cudaStreamWaitEvent, or synchronize once after "
                    "the loop";
        D.Notes.push_back({LoopWork->Work->Loc, workName(*LoopWork->Work) + " issues work in the same loop here", {}});
        D.Notes.push_back({{}, "the wait inside '" + calleeName(*C.Call) + "' is here", {}, Elsewhere->File,
                           Elsewhere->Line});
        D.Evidence = {{"api", Elsewhere->What.size() > 2 ? Elsewhere->What.substr(1, Elsewhere->What.size() - 2)
                                                         : Elsewhere->What},
                      {"via", calleeName(*C.Call)},
                      {"summary", "cross-unit"}};
        Sink.emit(D, SM);
        continue;
      }
      const WorkCall &Wait = Helper ? *Helper->Waits : C;
      const ApiInfo *WaitApi = Wait.Api;
      bool Query = WaitApi && (WaitApi->Family == ApiFamily::StreamQuery ||
                               WaitApi->Family == ApiFamily::EventQuery);
      CheckDiagnostic D;
      D.Rule = RuleId::SyncInLoop;
      D.Level = Helper ? Severity::Warning : C.Api->RuleSeverity;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      std::string Fix = WaitApi ? std::string(WaitApi->Fix)
                                : "order GPU work with events and cudaStreamWaitEvent, or "
                                  "synchronize once after the loop";
      if (Helper)
        D.Message = "'" + calleeName(*C.Call) + "' waits for the GPU (" + workName(Wait) +
                    ") inside a loop that issues stream work, which stalls the host every iteration; " + Fix;
      else
        D.Message = "'" + std::string(C.Api->Name) + "' " +
                    (Query ? "polled inside a loop that issues stream work spins the host every iteration"
                           : "inside a loop that issues stream work stalls the host every iteration") +
                    "; " + Fix;
      D.Notes.push_back({LoopWork->Work->Loc, workName(*LoopWork->Work) + " issues work in the same loop here", {}});
      if (Helper)
        D.Notes.push_back({Wait.Loc, "the wait inside '" + calleeName(*C.Call) + "' is here", {}});
      D.Evidence = {{"api", WaitApi ? std::string(WaitApi->Name) : calleeName(*Wait.Call)}};
      if (WaitApi)
        D.Evidence.push_back({"documented", std::string(documentedSyncText(WaitApi->Documented))});
      if (Helper)
        D.Evidence.push_back({"via", calleeName(*C.Call)});
      Sink.emit(D, SM);
    }
  }
}

} // namespace syncwatch
