// What the flow checks (implicit-sync, sync-memcpy, sync-in-loop) say about the work in
// flight at a call: the names of work and the notes that point at it.
#pragma once

#include "../core/SyncwatchCheck.h"
#include "../core/WorkFlow.h"

#include <string>
#include <vector>

namespace syncwatch {

// "kernel 'k'", "'cudaMemcpyAsync'", "'helper'": what issued a piece of work.
inline std::string workName(const WorkCall &W) {
  if (W.isLaunch())
    return "kernel '" + calleeName(*W.Call) + "'";
  return "'" + (W.Api ? std::string(W.Api->Name) : calleeName(*W.Call)) + "'";
}

// The note that points at work still in flight at Call.
inline CheckNote pendingNote(const Pending &P, const WorkCall &Call, const clang::SourceManager &SM) {
  std::string Text = workName(*P.Work) +
                     (P.Work->Helper || P.Work->External ? " leaves stream work running here"
                                                         : " issues stream work here");
  Text += P.Must ? " that is still running" : " that may still be running";
  if (SM.isBeforeInTranslationUnit(Call.Loc, P.Work->Loc))
    Text += " (issued by the previous iteration)";
  return {P.Work->Loc, Text, {}};
}

// The notes for work a caller left running: its call site, and the work.
inline void callerNotes(const CallFlow &F, std::vector<CheckNote> &Notes) {
  if (!F.CallerSite && F.CallerElsewhere) {
    // Known from another unit's summary (syncwatch-lint's second phase).
    const ExternalCall &Site = *F.CallerElsewhere;
    std::string What = F.CallerElsewhereWork ? F.CallerElsewhereWork->Issued.What : std::string("stream work");
    Notes.push_back({{}, Site.Site.What + " is called here while " + What + " may still be running", {},
                     Site.Site.File, Site.Site.Line});
    if (F.CallerElsewhereWork)
      Notes.push_back({{}, What + " issues stream work here", {}, F.CallerElsewhereWork->Issued.File,
                       F.CallerElsewhereWork->Issued.Line});
    return;
  }
  if (!F.CallerSite)
    return;
  std::string Name = "'" + calleeName(*F.CallerSite->Call) + "'";
  std::string What = F.CallerPending ? workName(*F.CallerPending) : std::string("stream work");
  Notes.push_back({F.CallerSite->Loc, Name + " is called here while " + What + " may still be running", {}});
  if (F.CallerPending)
    Notes.push_back({F.CallerPending->Loc, What + " issues stream work here", {}});
}

// A note for each function the dataflow did not finish (it ran into the solver's limit):
// Rule did not judge its calls, and the report says so rather than staying silent.
inline void unjudgedNotes(const UnitFacts &Facts, RuleId Rule, DiagnosticSink &Sink) {
  const clang::SourceManager &SM = Facts.context()->getSourceManager();
  for (const WorkFlow::Unjudged &U : Facts.flow().unjudged()) {
    CheckDiagnostic D;
    D.Rule = Rule;
    D.Level = Severity::Note;
    D.Loc = reportLoc(U.Function->getLocation(), SM);
    D.Message = "'" + U.Function->getNameAsString() + "' was not judged by " + std::string(ruleInfo(Rule).Id) +
                ": its flow analysis stopped at the limit of " + std::to_string(U.BlockVisits) +
                " block visits before reaching a fixpoint (please report the function to syncwatch)";
    D.Evidence = {{"unjudged", "flow-limit"}};
    Sink.emit(D, SM);
  }
}

} // namespace syncwatch
