#include "SyncMemcpyCheck.h"
#include "FlowNotes.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {
namespace {

// The declaration a stream expression names (a variable, parameter or member of *this),
// or nullptr for anything more complex.
const NamedDecl *streamDecl(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return ME->getMemberDecl();
  return nullptr;
}

// The one stream a function can use: every stream it passes, every cudaStream_t parameter
// and local variable. nullptr when there are none, several, or one we cannot name.
const NamedDecl *onlyStreamInScope(const FunctionCalls &F, ASTContext &Ctx) {
  std::set<const NamedDecl *> Streams;
  bool Unnameable = false;
  for (const WorkCall &W : F.Calls) {
    if (!W.StreamWork)
      continue;
    std::optional<StreamArg> S = streamArgOf(*W.Call, W.Api, Ctx);
    if (!S || S->Kind != StreamArgKind::Explicit)
      continue;
    if (const NamedDecl *D = streamDecl(S->Expr))
      Streams.insert(D);
    else
      Unnameable = true;
  }
  if (const auto *FD = dyn_cast<FunctionDecl>(F.Function)) {
    for (const ParmVarDecl *P : FD->parameters())
      if (isStreamType(P->getType()))
        Streams.insert(P);
    if (const Stmt *Body = FD->getBody())
      for (const BoundNodes &N : match(findAll(varDecl().bind("v")), *Body, Ctx))
        if (const auto *V = N.getNodeAs<VarDecl>("v"); V && isStreamType(V->getType()))
          Streams.insert(V);
  }
  if (Unnameable || Streams.size() != 1)
    return nullptr;
  return *Streams.begin();
}

bool allArgumentsWritten(const CallExpr &Call) {
  for (const Expr *A : Call.arguments())
    if (!isWritten(A))
      return false;
  return true;
}

// A copy between two device buffers: cuMemcpyDtoD, or a copy whose cudaMemcpyKind is the
// constant cudaMemcpyDeviceToDevice. The host does not wait for it (CUDA 13 / H200: a 1 MB
// cudaMemcpy DtoD returned in 0.03 ms; docs/measured-behaviour.md): what it costs is its
// place on the legacy stream, so its message must not say "synchronous" (field class 3).
bool copiesDeviceToDevice(const WorkCall &C, ASTContext &Ctx) {
  if (C.Api->Direction == CopyDirection::DtoD)
    return true;
  if (C.Api->KindArg < 0 || static_cast<unsigned>(C.Api->KindArg) >= C.Call->getNumArgs())
    return false;
  std::optional<std::int64_t> Kind = constantInt(C.Call->getArg(C.Api->KindArg), Ctx);
  return Kind && *Kind == static_cast<std::int64_t>(MemcpyKind::DeviceToDevice);
}

// Device-only work: the host never reads or reuses a buffer, so moving it to the one stream
// in scope keeps every ordering the host relied on.
bool touchesOnlyDeviceMemory(const WorkCall &C, ASTContext &Ctx) {
  return C.Api->Family == ApiFamily::Memset || copiesDeviceToDevice(C, Ctx);
}

std::vector<FixItHint> toAsyncFix(const WorkCall &C, const ApiInfo &Async, const NamedDecl &Stream,
                                  ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation Callee = C.Call->getCallee()->getBeginLoc();
  CharSourceRange Name =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Callee, Callee), SM, LO);
  CharSourceRange RParen = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(C.Call->getRParenLoc(), C.Call->getRParenLoc()), SM, LO);
  if (Name.isInvalid() || RParen.isInvalid() || !allArgumentsWritten(*C.Call))
    return {};
  return {FixItHint::CreateReplacement(Name, Async.Name),
          FixItHint::CreateInsertion(RParen.getBegin(), ", " + Stream.getNameAsString())};
}

} // namespace

void SyncMemcpyCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ReportedOnce Reported;  // template instantiations repeat a function's calls
  const StreamUsage &Usage = Facts.streams();
  ASTContext *Ctx = Facts.context();
  // Synchronous copies cost concurrency only where there is concurrency to lose.
  if (!Ctx || !Usage.usesOtherStreams())
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  unjudgedNotes(Facts, RuleId::SyncMemcpy, Sink);
  bool Torch = Facts.usesAten();
  for (const FunctionCalls &F : Facts.functions()) {
    const NamedDecl *Stream = nullptr;
    bool StreamLookedUp = false;
    for (const WorkCall &C : F.Calls) {
      // In a PyTorch extension cudaMemcpy is syncwatch-torch-host-sync's finding and
      // cudaMemset syncwatch-torch-current-stream's.
      if (!C.Api || C.Api->Rule != RuleId::SyncMemcpy || (Torch && isHostFunction(F.Function)))
        continue;
      // The copy costs concurrency only where there is work for it to wait for or to
      // serialize with: not at start-up, not right after everything was drained.
      const CallFlow *Flow = Facts.flow().at(C);
      if (!Flow)
        continue;
      // Earlier legacy-stream memsets and device-to-device copies of the synchronous API
      // (this rule's own calls) are no work a copy loses concurrency to: the copy is queued
      // behind them on the same stream whatever it is, and they take microseconds (a
      // cudaMemset returned in 0.02 ms on the H200). Kernels and Async work count.
      std::vector<Pending> InFlight;
      for (const Pending &Q : Flow->InFlight)
        if (!(Q.Work && Q.Work->Api && Q.Work->Api->Rule == RuleId::SyncMemcpy))
          InFlight.push_back(Q);
      bool Any = !InFlight.empty() || Flow->Caller == CallerWork::Known;
      // Unknown callers, but the function drained the streams it was given right before
      // (CUTLASS's reduce: finalize kernel, cudaStreamSynchronize(stream), result copied back):
      // a drain, after which the copy has nothing of this code to wait for.
      bool AfterOwnDrain = !Any && Flow->Caller == CallerWork::Unknown && Flow->CallerStreamsDrained;
      if ((!Any && Flow->Caller != CallerWork::Unknown) || AfterOwnDrain || !Reported.first(C.Loc))
        continue;
      const Pending *P = InFlight.empty() ? nullptr : &InFlight.front();
      for (const Pending &Q : InFlight)
        if (Q.Must) {
          P = &Q;
          break;
        }
      const ApiInfo *Async = asyncCounterpart(*C.Api);
      bool Copy = C.Api->Family == ApiFamily::Copy;
      CheckDiagnostic D;
      D.Rule = RuleId::SyncMemcpy;
      // Work only the callers outside this unit might have left: a note, not a gate failure.
      D.Level = Any ? C.Api->RuleSeverity : Severity::Note;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      std::string Name = "'" + std::string(C.Api->Name) + "'";
      std::string Use = Async ? "use " + std::string(Async->Name) + " on the stream that owns the data"
                              : std::string(C.Api->Fix);
      bool DeviceToDevice = Copy && copiesDeviceToDevice(C, *Ctx);
      D.Message = DeviceToDevice
                      ? Name + " (device to device) does not block the host, but runs on the legacy default "
                               "stream in code that uses streams: it waits for earlier work on blocking "
                               "streams and holds back their later work; " + Use
                  : Copy ? Name + " is synchronous and runs on the legacy default stream in code "
                                "that uses streams; " + Use
                       : Name + " runs on the legacy default stream in code that uses streams "
                                "(it returned at once on CUDA 13 / H200, but serializes with "
                                "blocking streams); " + Use;
      if (!StreamLookedUp) {
        Stream = onlyStreamInScope(F, *Ctx);
        StreamLookedUp = true;
      }
      if (Async && Stream) {
        std::vector<FixItHint> Fix = toAsyncFix(C, *Async, *Stream, *Ctx);
        if (!Fix.empty()) {
          if (touchesOnlyDeviceMemory(C, *Ctx))
            D.Fixes = Fix;
          else
            D.Notes.push_back({C.Loc,
                               "'" + Stream->getNameAsString() +
                                   "' is the only stream here; after moving the copy onto it, "
                                   "synchronize it before the host uses the buffer",
                               Fix});
        }
      }
      if (P)
        D.Notes.insert(D.Notes.begin(), pendingNote(*P, C, SM));
      else if (Flow->Caller == CallerWork::Known)
        callerNotes(*Flow, D.Notes);
      D.Evidence = {{"api", std::string(C.Api->Name)},
                    {"documented", std::string(documentedSyncText(C.Api->Documented))},
                    {"measured", DeviceToDevice ? std::string("returned at once (a 1 MB device-to-device "
                                                              "cudaMemcpy: 0.03 ms, CUDA 13, H200)")
                                                : std::string(measuredSyncText(C.Api->Measured))},
                    {"inFlight", P ? (P->Must ? "must" : "may")
                                   : Flow->Caller == CallerWork::Known ? "caller" : "unknown-caller"}};
      Sink.emit(D, SM);
    }
  }
}

} // namespace syncwatch
