#include "RedundantSyncCheck.h"

#include "../core/ErrorPaths.h"
#include "FlowNotes.h"

#include "../core/WorkTransfer.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;

namespace syncwatch {

namespace {

// A synchronous device-to-host copy on the legacy default stream: it returns only once its
// data is on the host, and the copy runs only after all earlier work of the legacy stream
// and of every blocking stream (measured on the H200: BlocksBehindBlockingStreams). A
// host-to-device copy is left alone: from pageable memory it returns once the data is
// staged, which can be before that earlier work is done.
bool isBlockingReadback(const WorkCall &C, ASTContext &Ctx) {
  if (!C.Api || C.Api->Family != ApiFamily::Copy || !C.HostWaits || C.Api->takesStream())
    return false;
  if (C.Api->Direction == CopyDirection::DtoH)
    return true;
  if (C.Api->Direction != CopyDirection::ByKind || C.Api->KindArg < 0 ||
      static_cast<unsigned>(C.Api->KindArg) >= C.Call->getNumArgs())
    return false;
  std::optional<std::int64_t> Kind = constantInt(C.Call->getArg(C.Api->KindArg), Ctx);
  return Kind && static_cast<MemcpyKind>(*Kind) == MemcpyKind::DeviceToHost;
}

// Nothing but spaces, comments and the end of the first statement between the two calls:
// a timer read, a printf or a branch between them is a reason for the sync we cannot see.
bool nextStatement(const WorkCall &Sync, const WorkCall &Copy, const SourceManager &SM, const LangOptions &LO) {
  SourceLocation End = SM.getExpansionRange(Sync.Call->getEndLoc()).getEnd();
  End = Lexer::getLocForEndOfToken(End, 0, SM, LO);
  SourceLocation Begin = SM.getExpansionLoc(Copy.Call->getBeginLoc());
  if (End.isInvalid() || Begin.isInvalid() || SM.getFileID(End) != SM.getFileID(Begin) ||
      !SM.isBeforeInTranslationUnit(End, Begin))
    return false;
  StringRef Between = Lexer::getSourceText(CharSourceRange::getCharRange(End, Begin), SM, LO);
  for (std::size_t I = 0; I < Between.size(); ++I) {
    char Ch = Between[I];
    if (Between.substr(I).starts_with("//")) {
      I = Between.find('\n', I);
      if (I == StringRef::npos)
        return true;
    } else if (Between.substr(I).starts_with("/*")) {
      I = Between.find("*/", I + 2);
      if (I == StringRef::npos)
        return false;
      ++I;
    } else if (!(Ch == ' ' || Ch == '\t' || Ch == '\n' || Ch == '\r' || Ch == ';' || Ch == ')')) {
      return false;
    }
  }
  return true;
}

} // namespace

void RedundantSyncCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ASTContext *Ctx = Facts.context();
  if (!Ctx)
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  // The streams this unit creates blocking: a legacy-stream copy waits for their work.
  std::set<const Decl *> Blocking;
  for (const StreamCreation &C : Facts.streams().creations())
    if (C.Blocking && C.Call->getNumArgs())
      if (const Decl *D = namedDecl(C.Call->getArg(0)))
        Blocking.insert(D);
  auto CopyWaitsFor = [&](const Queue &Q) {
    return Q.K == Queue::Legacy || (Q.K == Queue::Named && Blocking.count(Q.Stream));
  };
  // Functions and lambdas of this unit called inside a loop: their body runs once per
  // iteration, like a loop's.
  std::set<const Decl *> CalledInLoop;
  for (const FunctionCalls &F : Facts.functions())
    for (const WorkCall &W : F.Calls)
      if (W.Helper && !W.Loops.empty())
        CalledInLoop.insert(W.Helper->getCanonicalDecl());
  ReportedOnce Reported;  // template instantiations repeat a function's calls
  for (const FunctionCalls &F : Facts.functions()) {
    bool Repeated = CalledInLoop.count(F.Function->getCanonicalDecl());
    for (std::size_t I = 0; I + 1 < F.Calls.size(); ++I) {
      const WorkCall &Sync = F.Calls[I], &Copy = F.Calls[I + 1];
      if (!Sync.Api || (Sync.Loops.empty() && !Repeated) || Copy.Loops != Sync.Loops ||
          (Sync.Api->Family != ApiFamily::DeviceSync && Sync.Api->Family != ApiFamily::StreamSync) ||
          onErrorPath(Sync.Call, *Ctx))  // an error path runs once (ErrorPaths.h)
        continue;
      // In a per-thread default stream build the copy waits for the thread's stream only.
      if (usesPerThreadDefaultStream(*Sync.Call, *Ctx) || !isBlockingReadback(Copy, *Ctx) ||
          !nextStatement(Sync, Copy, SM, Ctx->getLangOpts()))
        continue;
      if (Sync.Api->Family == ApiFamily::StreamSync && !CopyWaitsFor(Facts.flow().queueOf(Sync)))
        continue;
      // Work the sync waits for, all of it on queues the copy waits for (work a helper left
      // on a stream we cannot name keeps the sync: it may be the one that waits for it).
      const CallFlow *Flow = Facts.flow().at(Sync);
      if (!Flow || Flow->Waited.empty())
        continue;
      bool AllCovered = true;
      for (const Pending &P : Flow->Waited)
        AllCovered = AllCovered && CopyWaitsFor(Facts.flow().queueOf(*P.Work));
      if (!AllCovered || !Reported.first(Sync.Loc))
        continue;
      std::string SyncName = "'" + std::string(Sync.Api->Name) + "'", CopyName = "'" + std::string(Copy.Api->Name) + "'";
      CheckDiagnostic D;
      D.Rule = RuleId::RedundantSync;
      D.Level = ruleInfo(RuleId::RedundantSync).DefaultSeverity;
      D.Loc = Sync.Loc;
      D.Range = reportRange(Sync.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      D.Message = SyncName + " waits for work that the " + CopyName +
                  " right after it waits for anyway (a device-to-host copy on the legacy default stream "
                  "starts after all earlier work of the legacy stream and of blocking streams): two host "
                  "round trips per iteration instead of one; drop the sync";
      D.Notes.push_back({Copy.Loc, CopyName + " waits for the same work here", {}});
      D.Notes.push_back(pendingNote(Flow->Waited.front(), Sync, SM));
      D.Evidence = {{"api", std::string(Sync.Api->Name)}, {"copy", std::string(Copy.Api->Name)},
                    {"waited", std::to_string(Flow->Waited.size())}};
      Sink.emit(D, SM);
    }
  }
}

} // namespace syncwatch
