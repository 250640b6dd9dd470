#include "CaptureBreakingCallCheck.h"
#include "FlowNotes.h"

#include "../core/CaptureRegions.h"
#include "../core/WorkTransfer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace syncwatch {

namespace {

// Why a call breaks the captures active at it, and which of them.
struct Breach {
  enum Kind { Waits, WaitsElsewhere, LegacyStream, Unsafe, UnsafeWait, Isolation, TensorWait } K;
  std::vector<const ActiveCapture *> Broken;  // the captures it breaks (non-empty)
  bool Certain = true;                        // false: only if the capture's mode is not relaxed
};

// How a wait or query meets a capture (measured: docs/measured-behaviour.md, "Stream capture").
enum class WaitMeets { Nothing, Conflict, Unsafe, Implicit };

// An event recorded on a stream inside the capture, in this function before Call: a
// captured event (not work), whose wait or query conflicts with the capture.
bool recordedInCapture(const FunctionCalls &F, const WorkCall &Call, const ActiveCapture &Cap, const Expr *Event,
                       ASTContext &Ctx) {
  std::optional<EventKey> Key = eventKey(Event, Ctx);
  if (!Key || Cap.Via)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const WorkCall &W : F.Calls) {
    if (&W == &Call || !W.Api || W.Api->Family != ApiFamily::EventRecord || !W.Call->getNumArgs())
      continue;
    if (SM.isBeforeInTranslationUnit(W.Loc, Cap.BeginLoc) || !SM.isBeforeInTranslationUnit(W.Loc, Call.Loc))
      continue;
    if (eventKey(W.Call->getArg(0), Ctx) == Key)
      return true;
  }
  return false;
}

WaitMeets waitMeets(const FunctionCalls &F, const WorkCall &C, const ActiveCapture &Cap, const UnitFacts &Facts,
                    ASTContext &Ctx) {
  const ApiInfo &A = *C.Api;
  switch (A.Family) {
  case ApiFamily::DeviceSync:  // every mode, every thread
    return WaitMeets::Conflict;
  case ApiFamily::StreamSync:
  case ApiFamily::StreamQuery: {
    Queue Q = Facts.flow().queueOf(C);
    if (Q.K == Queue::Legacy)  // the legacy stream would wait for a blocking captured stream
      return Cap.NonBlocking ? WaitMeets::Unsafe : WaitMeets::Implicit;
    if (Q.K == Queue::Unknown || Cap.Stream.K == Queue::Unknown || Q == Cap.Stream)
      return WaitMeets::Conflict;
    return WaitMeets::Unsafe;  // another stream: fails in global and thread-local modes
  }
  case ApiFamily::EventSync:
  case ApiFamily::EventQuery:
    return C.Call->getNumArgs() && recordedInCapture(F, C, Cap, C.Call->getArg(0), Ctx) ? WaitMeets::Conflict
                                                                                         : WaitMeets::Unsafe;
  default:
    return WaitMeets::Nothing;
  }
}

// cudaStreamWaitEvent(captured stream, e) for an event not recorded inside the capture: a
// dependency on uncaptured work (cudaErrorStreamCaptureIsolation), unless the wait says it is
// external (cudaEventWaitExternal).
bool waitsOutsideCapture(const FunctionCalls &F, const WorkCall &C, const ActiveCapture &Cap, const UnitFacts &Facts,
                         ASTContext &Ctx) {
  if (!C.Api || C.Api->Family != ApiFamily::StreamWaitEvent || C.Call->getNumArgs() < 2)
    return false;
  Queue Q = Facts.flow().queueOf(C);
  if (!(Q == Cap.Stream) || Q.K == Queue::Unknown)
    return false;
  if (C.Call->getNumArgs() >= 3)
    if (std::optional<std::int64_t> Flags = constantInt(C.Call->getArg(2), Ctx); !Flags || (*Flags & 1))
      return false;  // cudaEventWaitExternal (or flags syncwatch cannot read)
  return !recordedInCapture(F, C, Cap, C.Call->getArg(1), Ctx);
}

std::optional<Breach> breachOf(const FunctionCalls &F, const WorkCall &C, const std::vector<ActiveCapture> &Active,
                               const UnitFacts &Facts, ASTContext &Ctx) {
  Breach B{Breach::Waits, {}, true};
  if (C.Tensor) {  // .item(), .cpu(), .tolist(): a wait for the current (capturing) stream
    B.K = Breach::TensorWait;
    for (const ActiveCapture &Cap : Active)
      B.Broken.push_back(&Cap);
    return B;
  }
  // A function of another file that waits for the GPU on the host (its summary, syncwatch-lint's
  // second phase): a wait whatever the capture's mode.
  if (C.External && C.External->Waits) {
    B.K = Breach::WaitsElsewhere;
    for (const ActiveCapture &Cap : Active)
      B.Broken.push_back(&Cap);
    return B;
  }
  bool Launch = C.isLaunch();
  const ApiInfo *A = C.Api;
  if (!A && !Launch)
    return std::nullopt;
  CaptureUse Use = A ? A->Capture : CaptureUse::Recorded;
  auto Break = [&](Breach::Kind K, const ActiveCapture &Cap) {
    B.K = K;
    B.Broken.push_back(&Cap);
  };
  // (the thread's own relaxed mode allows what the capture's mode forbids it)
  bool ThreadRelaxed = Facts.captures().threadRelaxedAt(C);
  for (const ActiveCapture &Cap : Active) {
    bool Relaxed = Cap.Mode == CaptureMode::Relaxed || ThreadRelaxed;
    switch (Use) {
    case CaptureUse::Allowed:
    case CaptureUse::Begins:
    case CaptureUse::Ends:
    case CaptureUse::SetsMode:
      break;
    case CaptureUse::Unsafe:
      if (!Relaxed)
        Break(Breach::Unsafe, Cap);
      break;
    case CaptureUse::Conflicts:
      if (A->issuesOnLegacyStream()) {
        if (usesPerThreadDefaultStream(*C.Call, Ctx)) {
          // Per-thread build: the copy waits for the per-thread stream, which may be the one captured.
          if (Cap.Stream.K == Queue::PerThread || Cap.Stream.K == Queue::Unknown)
            Break(Breach::Waits, Cap);
        } else if (!Cap.NonBlocking) {
          Break(Breach::LegacyStream, Cap);  // legacy-stream work joins a blocking capture
        }
        break;
      }
      switch (waitMeets(F, C, Cap, Facts, Ctx)) {
      case WaitMeets::Nothing:
        break;
      case WaitMeets::Conflict:
        Break(Breach::Waits, Cap);
        break;
      case WaitMeets::Implicit:
        Break(Breach::LegacyStream, Cap);
        break;
      case WaitMeets::Unsafe:
        if (!Relaxed)
          Break(Breach::UnsafeWait, Cap);
        break;
      }
      break;
    case CaptureUse::Recorded: {
      Queue Q = Facts.flow().queueOf(C);
      if (Q.K == Queue::Legacy && !Cap.NonBlocking)
        Break(Breach::LegacyStream, Cap);
      else if (waitsOutsideCapture(F, C, Cap, Facts, Ctx))
        Break(Breach::Isolation, Cap);
      break;
    }
    }
    if (!B.Broken.empty())
      break;  // one capture is enough to name: the first
  }
  if (B.Broken.empty())
    return std::nullopt;
  if ((B.K == Breach::Unsafe || B.K == Breach::UnsafeWait) && B.Broken.front()->Mode == CaptureMode::Unknown)
    B.Certain = false;
  return B;
}

// A condition that reads whether a capture is under way: a variable, member or function whose
// name speaks of captures (warp's g_captures.empty(), a pool's `capturing` flag, PyTorch's
// currentStreamCaptureStatus()), or cudaStreamIsCapturing's status constants.
bool readsCaptureState(const Stmt *S) {
  if (!S)
    return false;
  auto Speaks = [](StringRef Name) { return Name.lower().find("captur") != std::string::npos; };
  if (const auto *R = dyn_cast<DeclRefExpr>(S); R && Speaks(R->getDecl()->getName()))
    return true;
  if (const auto *M = dyn_cast<MemberExpr>(S); M && Speaks(M->getMemberDecl()->getName()))
    return true;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const auto *F = dyn_cast_or_null<NamedDecl>(C->getCalleeDecl()); F && F->getIdentifier() && Speaks(F->getName()))
      return true;
  for (const Stmt *Child : S->children())
    if (readsCaptureState(Child))
      return true;
  return false;
}

// A statement that leaves its block whatever happens: return, throw, break, continue, or a
// block that ends in one.
bool exits(const Stmt *S) {
  if (const auto *B = dyn_cast_or_null<CompoundStmt>(S))
    return !B->body_empty() && exits(B->body_back());
  return isa_and_nonnull<ReturnStmt, CXXThrowExpr, BreakStmt, ContinueStmt>(S);
}

// The statement around S in its function: its parent, or for a local variable's initializer
// (`cudaError_t e = cudaFree(p);`) the variable's DeclStmt; none at the body's top.
const Stmt *enclosingStmt(const Stmt &S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(S);
  if (Parents.empty())
    return nullptr;
  if (const auto *Var = Parents[0].get<VarDecl>(); Var && Var->isLocalVarDecl()) {
    DynTypedNodeList Up = Ctx.getParents(*Var);
    return Up.empty() ? nullptr : Up[0].get<DeclStmt>();
  }
  return Parents[0].get<Stmt>();
}

// L lies within S's source (expansion locations: a macro's use counts where it is written).
bool holds(const Stmt &S, SourceLocation L, const SourceManager &SM) {
  if (L.isInvalid())
    return false;
  SourceLocation B = SM.getExpansionLoc(S.getBeginLoc()), E = SM.getExpansionLoc(S.getEndLoc());
  L = SM.getExpansionLoc(L);
  return B == L || E == L || (SM.isBeforeInTranslationUnit(B, L) && SM.isBeforeInTranslationUnit(L, E));
}

// The call at At runs only when the program found no capture under way: it is in a branch of
// an `if` (or ?:) on the capture state, or after `if (<capture state>) return;` in a block
// around it. A condition around the capture's own begin is no such guard (a "use graphs"
// switch: everything after the begin is inside).
bool guardedByCaptureState(const Stmt *At, const ActiveCapture &Cap, ASTContext &Ctx) {
  auto Guard = [&](const Stmt *If, const Expr *Cond) {
    return readsCaptureState(Cond) && !holds(*If, Cap.BeginLoc, Ctx.getSourceManager());
  };
  const Stmt *Child = At;
  for (unsigned Depth = 0; Child && Depth < 64; ++Depth) {
    const Stmt *Parent = enclosingStmt(*Child, Ctx);
    if (!Parent)
      return false;  // the function's body (or a declaration's initializer) reached
    if (const auto *If = dyn_cast<IfStmt>(Parent);
        If && (Child == If->getThen() || Child == If->getElse()) && Guard(If, If->getCond()))
      return true;
    if (const auto *C = dyn_cast<ConditionalOperator>(Parent);
        C && Child != C->getCond() && Guard(C, C->getCond()))
      return true;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent))
      for (const Stmt *Before : Block->body()) {
        if (Before == Child)
          break;
        if (const auto *If = dyn_cast<IfStmt>(Before); If && !If->getElse() && exits(If->getThen()) &&
                                                          Guard(If, If->getCond()))
          return true;
      }
    if (isa<LambdaExpr>(Parent))
      return false;
    Child = Parent;
  }
  return false;
}

// The capture is begun under a condition that does not also hold Site (the call of the helper
// the capture reached this call through): the helper runs with and without the capture, and
// the program may keep this call out of the captured runs - ggml begins its capture only
// `if (use_cuda_graph ...)` and turns graphs off for the ops whose helpers sync.
bool begunUnderCondition(const ActiveCapture &Cap, const Stmt *Site, ASTContext &Ctx) {
  if (!Cap.Begin || !Site)
    return false;
  const Stmt *Child = Cap.Begin;
  for (unsigned Depth = 0; Child && Depth < 64; ++Depth) {
    const Stmt *Parent = enclosingStmt(*Child, Ctx);
    if (!Parent || isa<LambdaExpr>(Parent))
      return false;
    if (const auto *If = dyn_cast<IfStmt>(Parent);
        If && (Child == If->getThen() || Child == If->getElse()) && !holds(*If, Site->getBeginLoc(), Ctx.getSourceManager()))
      return true;
    Child = Parent;
  }
  return false;
}

std::string callName(const WorkCall &C) {
  if (C.Tensor)
    return C.Tensor->What;
  return workName(C);
}

// The helper a capture reached the call through: "'forward'", or "the lambda".
std::string viaName(const CallExpr &Via) {
  if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(Via.getDirectCallee()); M && M->getParent()->isLambda())
    return "the lambda";
  return "'" + calleeName(Via) + "'";
}

std::string captureName(const ActiveCapture &Cap) {
  std::string Mode = captureModeName(Cap.Mode);
  return Cap.Torch ? std::string("a CUDA graph capture (CUDAGraph::capture_begin, ") + Mode + " mode)"
                   : "a CUDA graph capture (" + Mode + " mode)";
}

std::string messageOf(const WorkCall &C, const Breach &B) {
  const ActiveCapture &Cap = *B.Broken.front();
  std::string Name = callName(C);
  switch (B.K) {
  case Breach::Waits:
    return Name + " waits for or queries GPU work while a stream is captured into " + captureName(Cap) +
           ": the capture is invalidated (cudaErrorStreamCaptureUnsupported) and ending it returns no graph; " +
           "move it after the end of the capture, or order the work with events inside the graph";
  case Breach::WaitsElsewhere:
    return Name + " waits for the GPU (" + C.External->Waits->What + ", in another file) while a stream is captured into " +
           captureName(Cap) + ": the capture is invalidated (cudaErrorStreamCaptureUnsupported) and ending it " +
           "returns no graph; call it after the end of the capture";
  case Breach::LegacyStream:
    return Name + " uses the legacy default stream while a blocking stream is captured into " + captureName(Cap) +
           ": the capture is invalidated (cudaErrorStreamCaptureImplicit); issue it on the capturing stream, "
           "or capture a stream created with cudaStreamNonBlocking";
  case Breach::Unsafe:
    return Name + " is not permitted while a stream is captured into " + captureName(Cap) +
           ": the call fails (cudaErrorStreamCaptureUnsupported) and invalidates the capture; " +
           (C.Api && C.Api->Family == ApiFamily::DeviceAlloc
                ? "allocate before the capture begins, or with cudaMallocAsync on the capturing stream"
            : C.Api && C.Api->Family == ApiFamily::DeviceFree
                ? "free after the capture ends, or with cudaFreeAsync on the capturing stream"
                : "do it before the capture begins or after it ends") +
           " (a relaxed capture tolerates it)";
  case Breach::UnsafeWait:
    return Name + " waits for or queries work outside the capture while a stream is captured into " + captureName(Cap) +
           ": in global and thread-local modes the call fails (cudaErrorStreamCaptureUnsupported) and invalidates "
           "the capture; move it before the capture begins or after it ends (a relaxed capture tolerates it)";
  case Breach::Isolation:
    return Name + " makes the captured stream wait for an event recorded outside the capture, while it is captured "
           "into " + captureName(Cap) + ": the capture is invalidated (cudaErrorStreamCaptureIsolation); record the "
           "event inside the capture, or wait with cudaEventWaitExternal";
  case Breach::TensorWait:
    return Name + " makes the host wait for the GPU while the current stream is captured into " + captureName(Cap) +
           ": the capture fails (operation not permitted when stream is capturing); keep the value on the GPU, "
           "or read it after the capture ends";
  }
  return Name;
}

// `k<<<g, b>>>(...)` on the legacy stream inside the capture of a stream named in this
// function: launched on that stream instead, it becomes a node of the graph.
std::optional<FixItHint> launchFix(const WorkCall &C, const ActiveCapture &Cap, ASTContext &Ctx) {
  const auto *K = dyn_cast<CUDAKernelCallExpr>(C.Call);
  if (!K || Cap.Via || Cap.Stream.K != Queue::Named || !Cap.Stream.Stream)
    return std::nullopt;
  const CallExpr *Config = K->getConfig();
  if (!Config || Config->getNumArgs() < 3)
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *V = dyn_cast<NamedDecl>(Cap.Stream.Stream);
  if (!V || !Cap.Stream.Index.empty())
    return std::nullopt;
  // Only <<<g, b>>> as written (the shared-memory and stream arguments defaulted), outside macros.
  if (isWritten(Config->getArg(2)) || Config->getArg(1)->getEndLoc().isMacroID())
    return std::nullopt;
  SourceLocation After = Lexer::getLocForEndOfToken(Config->getArg(1)->getEndLoc(), 0, SM, Ctx.getLangOpts());
  if (After.isInvalid())
    return std::nullopt;
  return FixItHint::CreateInsertion(After, ", 0, " + V->getName().str());
}

} // namespace

void CaptureBreakingCallCheck::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {
  ASTContext *Ctx = Facts.context();
  if (!Ctx || !Facts.captures().any())
    return;
  const SourceManager &SM = Ctx->getSourceManager();
  ReportedOnce Reported;  // template instantiations repeat a function's calls
  for (const FunctionCalls &F : Facts.functions())
    for (const WorkCall &C : F.Calls) {
      const std::vector<ActiveCapture> &Active = Facts.captures().at(C);
      if (Active.empty())
        continue;
      // Each capture active here on its own: the one named is the strongest case - a certain
      // breach of a capture begun whatever happens, before one begun under a condition.
      std::optional<Breach> B;
      const ActiveCapture *Named = nullptr;
      bool Conditional = false;
      const CallExpr *Entry = nullptr;
      for (const ActiveCapture &Each : Active) {
        std::vector<ActiveCapture> One{Each};
        std::optional<Breach> Mine = breachOf(F, C, One, Facts, *Ctx);
        if (!Mine)
          continue;
        // The program checked that no capture is under way, here or at the call that brought
        // the capture into this function.
        if (guardedByCaptureState(C.Call, Each, *Ctx) || (Each.Via && guardedByCaptureState(Each.Via, Each, *Ctx)))
          continue;
        const CallExpr *MyEntry = Each.FirstVia ? Each.FirstVia : Each.Via;
        bool MyConditional = MyEntry && begunUnderCondition(Each, MyEntry, *Ctx);
        auto Rank = [](bool Certain, bool Cond) { return (Certain ? 2 : 0) + (Cond ? 0 : 1); };
        if (Named && Rank(Mine->Certain, MyConditional) <= Rank(B->Certain, Conditional))
          continue;
        B = Mine;
        B->Broken = {&Each};
        Named = &Each;
        Conditional = MyConditional;
        Entry = MyEntry;
      }
      if (!B || !Reported.first(C.Loc))
        continue;
      const ActiveCapture &Cap = *Named;
      CheckDiagnostic D;
      D.Rule = RuleId::CaptureBreakingCall;
      D.Level = B->Certain && !Conditional ? Severity::Warning : Severity::Note;
      D.Loc = C.Loc;
      D.Range = reportRange(C.Call->getCallee()->getSourceRange(), SM, Ctx->getLangOpts());
      D.Message = messageOf(C, *B);
      if (Conditional)
        D.Message += " (a note: the capture is begun only under a condition, and " + viaName(*Entry) +
                     " also runs without it - keep this call out of the captured runs)";
      if (B->K == Breach::LegacyStream)
        if (std::optional<FixItHint> Fix = launchFix(C, Cap, *Ctx))
          D.Fixes.push_back(*Fix);
      if (B->K == Breach::WaitsElsewhere)
        D.Notes.push_back({{}, "the wait inside " + callName(C) + " is here", {}, C.External->Waits->File,
                           C.External->Waits->Line});
      if (Cap.Via)
        D.Notes.push_back({Cap.ViaLoc, viaName(*Cap.Via) + " is called here while the capture is active", {}});
      if (Cap.BeginLoc.isValid())
        D.Notes.push_back({Cap.BeginLoc, "the capture begins here", {}});
      std::string Api = C.Api ? std::string(C.Api->Name) : callName(C);
      if (B->K == Breach::WaitsElsewhere && C.External->Waits->What.size() > 2)
        Api = C.External->Waits->What.substr(1, C.External->Waits->What.size() - 2);
      D.Evidence = {{"api", Api},
                    {"capture-mode", captureModeName(Cap.Mode)}};
      if (B->K == Breach::WaitsElsewhere)
        D.Evidence.push_back({"summary", "cross-unit"});
      Sink.emit(D, SM);
    }
}

} // namespace syncwatch
