// Base of the checks that judge calls by the GPU work in flight around them
// (implicit-sync, sync-in-loop, sync-memcpy): it collects the unit's FunctionWork, runs
// the WorkFlow dataflow once at the end of the unit, and leaves the judgement to
// onEndOfTranslationUnit.
#pragma once

#include "FunctionWork.h"
#include "SyncwatchCheck.h"
#include "WorkFlow.h"

#include <memory>

namespace syncwatch {

class FunctionWorkCheck : public SyncwatchCheck {
public:
  using SyncwatchCheck::SyncwatchCheck;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback) override {
    Work.registerMatchers(Finder, Callback);
  }
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override {
    Work.observe(Result);
  }
  void onStartOfTranslationUnit() override {
    Flow.reset();
    Work.reset();
    Reported.clear();
  }

protected:
  // The dataflow over the unit's functions, run on first use.
  const WorkFlow &flow() {
    if (!Flow)
      Flow = std::make_unique<WorkFlow>(Work.functions(), *Work.context());
    return *Flow;
  }
  // "kernel 'k'", "'cudaMemcpyAsync'", "'helper'": what issued a piece of work.
  static std::string workName(const WorkCall &W) {
    if (W.isLaunch())
      return "kernel '" + calleeName(*W.Call) + "'";
    return "'" + (W.Api ? std::string(W.Api->Name) : calleeName(*W.Call)) + "'";
  }
  // The note that points at work still in flight at Call.
  static CheckNote pendingNote(const Pending &P, const WorkCall &Call, const clang::SourceManager &SM) {
    std::string Text = workName(*P.Work) +
                       (P.Work->Helper ? " leaves stream work running here"
                                       : " issues stream work here");
    Text += P.Must ? " that is still running" : " that may still be running";
    if (SM.isBeforeInTranslationUnit(Call.Loc, P.Work->Loc))
      Text += " (issued by the previous iteration)";
    return {P.Work->Loc, Text, {}};
  }
  // The notes for work a caller left running: its call site, and the work.
  static void callerNotes(const CallFlow &F, std::vector<CheckNote> &Notes) {
    if (!F.CallerSite)
      return;
    std::string Name = "'" + calleeName(*F.CallerSite->Call) + "'";
    std::string What = F.CallerPending ? workName(*F.CallerPending) : std::string("stream work");
    Notes.push_back({F.CallerSite->Loc, Name + " is called here while " + What + " may still be running", {}});
    if (F.CallerPending)
      Notes.push_back({F.CallerPending->Loc, What + " issues stream work here", {}});
  }

  FunctionWork Work;
  std::unique_ptr<WorkFlow> Flow;
  ReportedOnce Reported;  // template instantiations repeat a function's calls
};

} // namespace syncwatch
