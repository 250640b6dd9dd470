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

// The notes for work a caller left running: its call site, the calls further up it came
// through (from other units' summaries, syncwatch-lint's second phase), and the work.
inline void callerNotes(const CallFlow &F, std::vector<CheckNote> &Notes) {
  const ExternalCall::Work *Elsewhere = F.CallerElsewhere ? F.CallerElsewhereWork : nullptr;
  std::string What = F.CallerPending ? workName(*F.CallerPending)
                     : Elsewhere     ? Elsewhere->Issued.What
                                     : std::string("stream work");
  auto CalledWhile = [&](const std::string &Callee) { return Callee + " is called here while " + What + " may still be running"; };
  if (F.CallerSite)  // a call in this unit (of a helper whose own caller may be elsewhere)
    Notes.push_back({F.CallerSite->Loc, CalledWhile("'" + calleeName(*F.CallerSite->Call) + "'"), {}});
  if (F.CallerPending) {
    Notes.push_back({F.CallerPending->Loc, What + " issues stream work here", {}});
    return;
  }
  if (!F.CallerElsewhere)
    return;
  const ExternalCall &Site = *F.CallerElsewhere;
  Notes.push_back({{}, CalledWhile(Site.Site.What), {}, Site.Site.File, Site.Site.Line});
  if (!Elsewhere)
    return;
  for (auto Via = Elsewhere->Via.rbegin(); Via != Elsewhere->Via.rend(); ++Via)  // nearest first
    Notes.push_back({{}, CalledWhile(Via->What), {}, Via->File, Via->Line});
  Notes.push_back({{}, What + " issues stream work here", {}, Elsewhere->Issued.File, Elsewhere->Issued.Line});
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
