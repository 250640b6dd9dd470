#include "CaptureRegions.h"
#include "CudaCalls.h"
#include "ErrorPaths.h"
#include "TorchCalls.h"
#include "WorkTransfer.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>

using namespace clang;

namespace syncwatch {

namespace {

using CaptureSet = std::vector<ActiveCapture>;  // sorted, each once

bool joinInto(CaptureSet &Into, const CaptureSet &From) {
  bool Changed = false;
  for (const ActiveCapture &C : From) {
    auto It = std::lower_bound(Into.begin(), Into.end(), C);
    if (It == Into.end() || !(*It == C)) {
      Into.insert(It, C);
      Changed = true;
    }
  }
  return Changed;
}

// A call that begins or ends a capture.
struct Delimiter {
  bool Begins = false;
  Queue Stream;               // Unknown for PyTorch's (the current stream, set by its caller)
  CaptureMode Mode = CaptureMode::Global;
  bool Torch = false;
};

bool isCaptureModeType(QualType T) {
  T = T.getCanonicalType();
  const auto *E = T->getAs<EnumType>();
  if (!E)
    return false;
  StringRef Name = E->getDecl()->getName();
  return Name == "cudaStreamCaptureMode" || Name == "CUstreamCaptureMode_enum";
}

// The mode argument's value: cudaStreamBeginCapture(s, mode), capture_begin(pool, mode); the
// driver's first cuStreamBeginCapture has none (global). A default argument counts: PyTorch's
// capture_begin defaults to cudaStreamCaptureModeGlobal.
CaptureMode modeOf(const CallExpr &Call, ASTContext &Ctx) {
  for (const Expr *A : Call.arguments()) {
    if (!isCaptureModeType(A->getType()))
      continue;
    std::optional<std::int64_t> V = constantInt(A, Ctx);
    if (!V)
      return CaptureMode::Unknown;
    switch (*V) {
    case 0:
      return CaptureMode::Global;
    case 1:
      return CaptureMode::ThreadLocal;
    case 2:
      return CaptureMode::Relaxed;
    default:
      return CaptureMode::Unknown;
    }
  }
  return CaptureMode::Global;
}

std::optional<Delimiter> delimiterOf(const CallExpr &Call, ASTContext &Ctx) {
  if (std::optional<bool> Torch = torchGraphCapture(Call)) {
    Delimiter D;
    D.Begins = *Torch;
    D.Torch = true;
    D.Mode = *Torch ? modeOf(Call, Ctx) : CaptureMode::Global;
    return D;
  }
  const ApiInfo *Api = catalogueEntry(Call);
  if (!Api || (Api->Capture != CaptureUse::Begins && Api->Capture != CaptureUse::Ends))
    return std::nullopt;
  Delimiter D;
  D.Begins = Api->Capture == CaptureUse::Begins;
  if (std::optional<StreamArg> S = streamArgOf(Call, Api, Ctx))
    D.Stream = queueOfStreamArg(*S, usesPerThreadDefaultStream(Call, Ctx), Ctx);
  if (D.Begins)
    D.Mode = modeOf(Call, Ctx);
  return D;
}

// Whether the unit begins a capture anywhere: the analysis runs only then.
class BeginFinder : public RecursiveASTVisitor<BeginFinder> {
public:
  explicit BeginFinder(ASTContext &Ctx) : Ctx(Ctx) {}
  bool VisitCallExpr(CallExpr *C) {
    if (std::optional<Delimiter> D = delimiterOf(*C, Ctx); D && D->Begins)
      Found = true;
    return !Found;
  }
  bool Found = false;

private:
  ASTContext &Ctx;
};

// The begin of a capture whose status Cond tests: `cudaStreamBeginCapture(...) != cudaSuccess`,
// or a variable it initialized (`cudaError_t rc = cudaStreamBeginCapture(...); if (rc) ...`).
const CallExpr *testedBegin(const Expr *Cond, ASTContext &Ctx) {
  const CallExpr *Found = nullptr;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || Found)
      return;
    const Expr *E = dyn_cast<Expr>(S);
    if (E)
      E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()); Var && Var->getInit())
        E = Var->getInit()->IgnoreParenImpCasts();
    if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
      if (std::optional<Delimiter> D = delimiterOf(*Call, Ctx); D && D->Begins && !D->Torch) {
        Found = Call;
        return;
      }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Cond);
  return Found;
}

const Stmt *bodyOf(const Decl *D) {
  const auto *F = dyn_cast_or_null<FunctionDecl>(D);
  return F && F->hasBody() ? F->getBody() : nullptr;
}

// Two queues that may be the same stream: equal, or one of them cannot be named.
bool sameStream(const Queue &A, const Queue &B) {
  return A.K == Queue::Unknown || B.K == Queue::Unknown || A == B;
}

} // namespace

// What a helper does to its caller's captures, from its own analysis with none active.
struct CaptureRegions::FunctionEffect {
  std::vector<Delimiter> Opens;        // captures still active when it returns
  std::vector<int> OpenParams;         // ...each begun on its parameter N (-1: not a parameter)
  bool Ends = false;                   // it ends a capture it did not begin (of any stream)
};

namespace {

// One function's analysis: the CFG, its calls, the state before each call.
class FunctionCaptures {
public:
  FunctionCaptures(const FunctionCalls &F, ASTContext &Ctx, const NonBlockingStreams &CreatedNonBlocking,
                   const std::map<const Decl *, CaptureRegions::FunctionEffect> &Effects)
      : F(F), Ctx(Ctx), CreatedNonBlocking(CreatedNonBlocking), Effects(Effects) {
    for (const WorkCall &W : F.Calls)
      ByCall[W.Call] = &W;
    if (const Stmt *Body = bodyOf(F.Function)) {
      CFG::BuildOptions Options;
      Cfg = CFG::buildCFG(F.Function, const_cast<Stmt *>(Body), &Ctx, Options);
    }
  }

  // Solves from Entry; Record: the state before each call, for the checks.
  // Returns the state at the function's exit (what it leaves active).
  CaptureSet solve(const CaptureSet &Entry, std::map<const CallExpr *, CaptureSet> *Record) {
    if (!Cfg)
      return Entry;
    std::vector<CaptureSet> In(Cfg->getNumBlockIDs());
    std::vector<bool> Reached(Cfg->getNumBlockIDs(), false);
    std::vector<const CFGBlock *> Work{&Cfg->getEntry()};
    In[Cfg->getEntry().getBlockID()] = Entry;
    Reached[Cfg->getEntry().getBlockID()] = true;
    unsigned Visits = 0, Limit = 64 * Cfg->getNumBlockIDs();
    while (!Work.empty() && Visits++ < Limit) {
      const CFGBlock *B = Work.back();
      Work.pop_back();
      CaptureSet S = In[B->getBlockID()];
      transferBlock(*B, S, nullptr);
      unsigned Branch = 0;
      for (const CFGBlock::AdjacentBlock &Succ : B->succs()) {
        const CFGBlock *Next = Succ.getReachableBlock();
        const CallExpr *Failed = failedBeginOn(*B, Branch++);
        if (!Next)
          continue;
        unsigned Id = Next->getBlockID();
        CaptureSet Out = S;
        if (Failed)  // the begin returned an error on this branch: nothing began
          Out.erase(std::remove_if(Out.begin(), Out.end(), [&](const ActiveCapture &C) { return C.Begin == Failed; }),
                    Out.end());
        bool Changed = joinInto(In[Id], Out) || !Reached[Id];
        Reached[Id] = true;
        if (Changed && std::find(Work.begin(), Work.end(), Next) == Work.end())
          Work.push_back(Next);
      }
    }
    if (Record)
      for (const CFGBlock *B : *Cfg)
        if (Reached[B->getBlockID()]) {
          CaptureSet S = In[B->getBlockID()];
          transferBlock(*B, S, Record);
        }
    return Reached[Cfg->getExit().getBlockID()] ? In[Cfg->getExit().getBlockID()] : CaptureSet{};
  }

  // The captures carried into the helper a call enters: the state before the call, each
  // reaching it through that call, its stream renamed to the helper's parameter it is passed as.
  CaptureSet carriedInto(const WorkCall &Call, const CaptureSet &Before) const {
    CaptureSet Out;
    for (ActiveCapture C : Before) {
      if (!C.Via)
        C.FirstVia = Call.Call;
      C.Via = Call.Call;
      C.ViaLoc = Call.Loc;
      C.Stream = streamInCallee(Call, C.Stream);
      joinInto(Out, {C});
    }
    return Out;
  }

  // The begins of this function that resume a capture it paused: each follows, in the body,
  // an end of a capture of the same stream (or a helper's end, a helper's begin) (NVIDIA/warp's capturable allocation: end the
  // capture, allocate outside the graph, cudaStreamBeginCaptureToGraph into the same graph).
  // Such a helper begins nothing for its callers: a caller with no capture under way has none
  // after its call.
  std::set<const CallExpr *> resumes() const {
    std::set<const CallExpr *> Out;
    if (!Cfg)
      return Out;
    std::vector<std::pair<const CallExpr *, Delimiter>> Delimiters;
    for (const CFGBlock *B : *Cfg)
      for (const CFGElement &E : *B)
        if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
          if (const auto *Call = dyn_cast<CallExpr>(CS->getStmt())) {
            if (std::optional<Delimiter> D = delimiterOf(*Call, Ctx)) {
              Delimiters.push_back({Call, *D});
              continue;
            }
            // A helper that ends a capture (a pause()) or opens one (a resume()): warp pauses
            // and resumes in two helpers of its own.
            auto W = ByCall.find(Call);
            auto E = W == ByCall.end() || !W->second->Helper ? Effects.end() : Effects.find(W->second->Helper);
            if (E == Effects.end())
              continue;
            if (E->second.Ends)
              Delimiters.push_back({Call, Delimiter{false, Queue{Queue::Unknown, nullptr, {}}, CaptureMode::Global, false}});
            if (!E->second.Opens.empty())
              Delimiters.push_back({Call, Delimiter{true, Queue{Queue::Unknown, nullptr, {}}, CaptureMode::Global, false}});
          }
    const SourceManager &SM = Ctx.getSourceManager();
    for (const auto &[Begin, D] : Delimiters)
      if (D.Begins)
        for (const auto &[End, E] : Delimiters)
          if (!E.Begins && E.Torch == D.Torch && sameStream(E.Stream, D.Stream) &&
              SM.isBeforeInTranslationUnit(SM.getExpansionLoc(End->getBeginLoc()),
                                           SM.getExpansionLoc(Begin->getBeginLoc())))
            Out.insert(Begin);
    return Out;
  }

private:
  // The capture begin whose status, tested by B's condition, is an error on successor Branch
  // of B (the then-branch of `if (cudaStreamBeginCapture(...) != cudaSuccess)`, the
  // else-branch of `== cudaSuccess`), or nullptr.
  const CallExpr *failedBeginOn(const CFGBlock &B, unsigned Branch) const {
    const Expr *Cond = B.getTerminatorCondition() ? dyn_cast<Expr>(B.getTerminatorCondition()) : nullptr;
    const CallExpr *Begin = Cond && Branch <= 1 ? testedBegin(Cond, Ctx) : nullptr;
    if (!Begin)
      return nullptr;
    return (Branch == 0 ? testsForError(Cond, Ctx) : testsForSuccess(Cond, Ctx)) ? Begin : nullptr;
  }

  // A caller's stream as the helper Call enters names it: the parameter it is passed as; the
  // legacy, per-thread, a global or a member stream as it is; a local one not passed: unknown.
  Queue streamInCallee(const WorkCall &Call, const Queue &Stream) const {
    if (Stream.K == Queue::Unknown || Stream.K == Queue::Legacy || Stream.K == Queue::PerThread)
      return Stream;
    if (const auto *Callee = dyn_cast_or_null<FunctionDecl>(Call.Helper))
      for (unsigned I = 0; I < Callee->getNumParams(); ++I)
        if (isStreamType(Callee->getParamDecl(I)->getType()) && argQueue(Call, I, Ctx) == Stream)
          return {Queue::Named, Callee->getParamDecl(I), {}};
    const auto *V = dyn_cast_or_null<VarDecl>(Stream.Stream);
    bool Local = isa_and_nonnull<ParmVarDecl>(Stream.Stream) || (V && V->isLocalVarDecl());
    return Local ? Queue{Queue::Unknown, nullptr, {}} : Stream;
  }

  void transferBlock(const CFGBlock &B, CaptureSet &S, std::map<const CallExpr *, CaptureSet> *Record) {
    for (const CFGElement &E : B) {
      std::optional<CFGStmt> CS = E.getAs<CFGStmt>();
      if (!CS)
        continue;
      const auto *Call = dyn_cast<CallExpr>(CS->getStmt());
      if (!Call)
        continue;
      if (Record && ByCall.count(Call))
        joinInto((*Record)[Call], S);
      transferCall(*Call, S);
    }
  }

  void transferCall(const CallExpr &Call, CaptureSet &S) {
    if (std::optional<Delimiter> D = delimiterOf(Call, Ctx)) {
      if (D->Begins) {
        ActiveCapture C;
        C.Begin = &Call;
        C.BeginLoc = reportLoc(Call.getBeginLoc(), Ctx.getSourceManager());
        C.Stream = D->Stream;
        C.Mode = D->Mode;
        C.Torch = D->Torch;
        C.NonBlocking = D->Torch || (D->Stream.K == Queue::Named && CreatedNonBlocking(D->Stream.Stream));
        joinInto(S, {C});
        return;
      }
      end(S, D->Torch, D->Stream);
      return;
    }
    auto W = ByCall.find(&Call);
    if (W == ByCall.end() || !W->second->Helper)
      return;
    auto E = Effects.find(W->second->Helper);
    if (E == Effects.end())
      return;
    const CaptureRegions::FunctionEffect &Eff = E->second;
    if (Eff.Ends)
      end(S, false, Queue{Queue::Unknown, nullptr, {}});
    for (std::size_t I = 0; I < Eff.Opens.size(); ++I) {
      const Delimiter &D = Eff.Opens[I];
      ActiveCapture C;
      C.Begin = &Call;  // the user sees the capture begin at the wrapper's call
      C.BeginLoc = W->second->Loc;
      C.Stream = Eff.OpenParams[I] >= 0 ? argQueue(*W->second, static_cast<unsigned>(Eff.OpenParams[I]), Ctx)
                                        : D.Stream;
      C.Mode = D.Mode;
      C.Torch = D.Torch;
      C.NonBlocking = D.Torch || (C.Stream.K == Queue::Named && CreatedNonBlocking(C.Stream.Stream));
      joinInto(S, {C});
    }
  }

  // An end of capture on Stream ends the captures that may be of that stream.
  static void end(CaptureSet &S, bool Torch, const Queue &Stream) {
    S.erase(std::remove_if(S.begin(), S.end(),
                           [&](const ActiveCapture &C) {
                             return Torch ? C.Torch : !C.Torch && sameStream(C.Stream, Stream);
                           }),
            S.end());
  }

  const FunctionCalls &F;
  ASTContext &Ctx;
  const NonBlockingStreams &CreatedNonBlocking;
  const std::map<const Decl *, CaptureRegions::FunctionEffect> &Effects;
  std::unique_ptr<CFG> Cfg;
  std::map<const CallExpr *, const WorkCall *> ByCall;
};

// The functions callees first (a helper's effect is known at its callers' calls); a
// recursive call sees no effect.
std::vector<const FunctionCalls *> calleesFirst(const std::vector<FunctionCalls> &Functions) {
  std::map<const Decl *, const FunctionCalls *> ByDecl;
  for (const FunctionCalls &F : Functions)
    ByDecl[F.Function] = &F;
  std::vector<const FunctionCalls *> Order;
  std::set<const Decl *> Done, Active;
  std::function<void(const FunctionCalls &)> Visit = [&](const FunctionCalls &F) {
    if (Done.count(F.Function) || !Active.insert(F.Function).second)
      return;
    for (const WorkCall &W : F.Calls)
      if (W.Helper)
        if (auto It = ByDecl.find(W.Helper); It != ByDecl.end())
          Visit(*It->second);
    Active.erase(F.Function);
    Done.insert(F.Function);
    Order.push_back(&F);
  };
  for (const FunctionCalls &F : Functions)
    Visit(F);
  return Order;
}

int paramIndex(const Decl *Function, const Queue &Q) {
  const auto *P = Q.K == Queue::Named ? dyn_cast_or_null<ParmVarDecl>(Q.Stream) : nullptr;
  const auto *F = dyn_cast_or_null<FunctionDecl>(Function);
  if (!P || !F)
    return -1;
  for (unsigned I = 0; I < F->getNumParams(); ++I)
    if (F->getParamDecl(I) == P)
      return static_cast<int>(I);
  return -1;
}

// The stretches of a function's body where its thread's capture mode is relaxed: from a
// cudaThreadExchangeStreamCaptureMode(&m), m set to relaxed, to the next exchange of m (the
// pop) or the end of the body; and from a PyTorch CUDAStreamCaptureModeGuard made relaxed to
// the end of its block.
class RelaxedSpans : public RecursiveASTVisitor<RelaxedSpans> {
public:
  RelaxedSpans(ASTContext &Ctx, SourceLocation BodyEnd) : Ctx(Ctx), BodyEnd(BodyEnd) {}
  bool VisitCompoundStmt(CompoundStmt *Block) {
    for (const Stmt *S : Block->body())
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D); V && isRelaxedGuard(*V))
            Spans.push_back({DS->getBeginLoc(), Block->getRBracLoc()});
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const ApiInfo *Api = catalogueEntry(*C);
    if (!Api || Api->Capture != CaptureUse::SetsMode || C->getNumArgs() != 1)
      return true;
    const auto *Addr = dyn_cast<UnaryOperator>(C->getArg(0)->IgnoreParenImpCasts());
    const auto *Ref = Addr && Addr->getOpcode() == UO_AddrOf ? dyn_cast<DeclRefExpr>(Addr->getSubExpr()->IgnoreParens()) : nullptr;
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V)
      return true;
    if (auto Open = Pushed.find(V); Open != Pushed.end()) {  // the pop
      Spans.push_back({Open->second, C->getBeginLoc()});
      Pushed.erase(Open);
    } else if (V->getInit() && relaxed(V->getInit())) {
      Pushed[V] = C->getBeginLoc();
    }
    return true;
  }
  std::vector<std::pair<SourceLocation, SourceLocation>> finish() {
    for (const auto &[V, From] : Pushed)
      Spans.push_back({From, BodyEnd});
    Pushed.clear();
    return Spans;
  }

private:
  bool relaxed(const Expr *E) const {
    std::optional<std::int64_t> V = constantInt(E, Ctx);
    return V && *V == 2;  // cudaStreamCaptureModeRelaxed
  }
  bool isRelaxedGuard(const VarDecl &V) const {
    const auto *Init = dyn_cast_or_null<CXXConstructExpr>(V.getInit() ? V.getInit()->IgnoreImplicit() : nullptr);
    return isCaptureModeGuard(V.getType()) && Init && Init->getNumArgs() == 1 && relaxed(Init->getArg(0));
  }

  ASTContext &Ctx;
  SourceLocation BodyEnd;
  std::map<const VarDecl *, SourceLocation> Pushed;
  std::vector<std::pair<SourceLocation, SourceLocation>> Spans;
};

} // namespace

CaptureRegions::CaptureRegions(const std::vector<FunctionCalls> &Functions, NonBlockingStreams CreatedNonBlocking,
                               ASTContext &Ctx) {
  BeginFinder Finder(Ctx);
  for (const FunctionCalls &F : Functions)
    if (const Stmt *Body = bodyOf(F.Function); Body && !Finder.Found)
      Finder.TraverseStmt(const_cast<Stmt *>(Body));
  Any = Finder.Found;
  if (!Any)
    return;
  std::vector<const FunctionCalls *> Order = calleesFirst(Functions);
  std::map<const Decl *, FunctionEffect> Effects;
  std::map<const Decl *, std::unique_ptr<FunctionCaptures>> Analyses;
  // Phase one, callees first: what each function does to its callers' captures.
  for (const FunctionCalls *F : Order) {
    auto A = std::make_unique<FunctionCaptures>(*F, Ctx, CreatedNonBlocking, Effects);
    CaptureSet Exit = A->solve({}, nullptr);
    FunctionEffect E;
    std::set<const CallExpr *> Resumes = A->resumes();
    for (const ActiveCapture &C : Exit) {
      if (Resumes.count(C.Begin))
        continue;  // it resumes the caller's capture: none when the caller had none
      E.Opens.push_back(Delimiter{true, C.Stream, C.Mode, C.Torch});
      E.OpenParams.push_back(paramIndex(F->Function, C.Stream));
    }
    // Ends a capture it did not begin: run it with one active on a stream it cannot name.
    CaptureSet Probe;
    ActiveCapture OnAnyStream;  // no begin; its stream unknown, so any end ends it
    joinInto(Probe, {OnAnyStream});
    E.Ends = A->solve(Probe, nullptr).empty();
    Effects[F->Function] = std::move(E);
    Analyses[F->Function] = std::move(A);
  }
  // Phase two, to a fixpoint: each function starts with the captures active at its calls.
  std::map<const Decl *, CaptureSet> Entry;
  for (unsigned Round = 0; Round < 8; ++Round) {
    bool Changed = false;
    for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
      FunctionCaptures &A = *Analyses[(*It)->Function];
      std::map<const CallExpr *, CaptureSet> States;
      A.solve(Entry[(*It)->Function], &States);
      for (const WorkCall &W : (*It)->Calls)
        if (W.Helper && Analyses.count(W.Helper))
          if (auto S = States.find(W.Call); S != States.end() && !S->second.empty())
            Changed |= joinInto(Entry[W.Helper], A.carriedInto(W, S->second));
    }
    if (!Changed)
      break;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionCalls *F : Order) {
    std::map<const CallExpr *, CaptureSet> States;
    Analyses[F->Function]->solve(Entry[F->Function], &States);
    for (auto &[Call, S] : States)
      if (!S.empty())
        joinInto(Before[Call], S);
    const Stmt *Body = bodyOf(F->Function);
    if (!Body)
      continue;
    RelaxedSpans Finder(Ctx, Body->getEndLoc());
    Finder.TraverseStmt(const_cast<Stmt *>(Body));
    for (const auto &[From, To] : Finder.finish())
      for (const WorkCall &W : F->Calls) {
        SourceLocation At = SM.getExpansionLoc(W.Call->getBeginLoc());
        if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(From), At) &&
            SM.isBeforeInTranslationUnit(At, SM.getExpansionLoc(To)))
          ThreadRelaxed.insert(W.Call);
      }
  }
}

bool CaptureRegions::threadRelaxedAt(const WorkCall &Call) const { return ThreadRelaxed.count(Call.Call) != 0; }

bool CaptureRegions::capturedWork(const WorkCall &Issue, const Queue &Q) const {
  for (const ActiveCapture &A : at(Issue))
    if (A.Stream == Q && Q.K != Queue::Unknown)
      return true;
  return false;
}

const std::vector<ActiveCapture> &CaptureRegions::at(const WorkCall &Call) const {
  static const std::vector<ActiveCapture> None;
  auto It = Before.find(Call.Call);
  return It == Before.end() ? None : It->second;
}

} // namespace syncwatch
