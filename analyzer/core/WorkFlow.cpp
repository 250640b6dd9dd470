#include "WorkFlow.h"

#include "ErrorPaths.h"

#include "CaptureRegions.h"
#include "FlowSolver.h"
#include "WorkTransfer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/BitVector.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

using namespace clang;

namespace syncwatch {

struct WorkFlow::FunctionState {
  const FunctionCalls *F = nullptr;
  const FunctionDecl *FD = nullptr;
  std::vector<Origin> Origins;
  std::map<const WorkCall *, unsigned> GenOf;
  std::map<const WorkCall *, WorkState> Before;
  std::map<const WorkCall *, llvm::BitVector> WaitedAt;  // what each call waits for
  std::vector<CallerWork> EntryCtx;                      // per origin (entry items only)
  std::vector<std::pair<const WorkCall *, const WorkCall *>> EntryWitness;
  // Per origin (entry items only): the call in another unit that left the work, and the work.
  std::vector<std::pair<const ExternalCall *, const ExternalCall::Work *>> EntryElsewhere;
  std::vector<const WorkCall *> Callers;                 // call sites in this unit
};

namespace {

bool isMain(const FunctionDecl *FD) { return FD && FD->isMain(); }

} // namespace

Queue WorkFlow::queueOf(const WorkCall &C) const { return syncwatch::queueOf(C, *this, Ctx); }

bool WorkFlow::waitsOnEarlierIteration(const FunctionCalls &F, const WorkCall &Sync,
                                       const Stmt *Loop) const {
  if (!Sync.Api || !Sync.Call->getNumArgs() ||
      (Sync.Api->Drains != Drain::Event && Sync.Api->Drains != Drain::EventWhenPolled))
    return false;
  std::optional<EventKey> K = eventKey(Sync.Call->getArg(0), Ctx);
  if (!K)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  bool RecordedLater = false;
  for (const WorkCall &W : F.Calls) {
    if (!W.Api || W.Api->Issues != IssuedWork::EventMark || !W.Call->getNumArgs() ||
        std::find(W.Loops.begin(), W.Loops.end(), Loop) == W.Loops.end())
      continue;
    std::optional<EventKey> R = eventKey(W.Call->getArg(0), Ctx);
    if (!R || *R != *K)
      continue;
    if (SM.isBeforeInTranslationUnit(W.Loc, Sync.Loc))
      return false; // recorded earlier in the same iteration: it waits for this one's work
    RecordedLater = true;
  }
  return RecordedLater;
}

WorkFlow::~WorkFlow() {
  for (auto &[D, S] : States)
    delete S;
}

const FunctionSummary *WorkFlow::summary(const Decl *Function) const {
  auto It = Summaries.find(Function);
  return It == Summaries.end() ? nullptr : &It->second;
}

const CallFlow *WorkFlow::at(const WorkCall &C) const {
  auto It = Flows.find(&C);
  return It == Flows.end() ? nullptr : &It->second;
}

WorkFlow::WorkFlow(const std::vector<FunctionCalls> &Functions, ASTContext &Ctx, unsigned VisitsPerBlock,
                   const SummaryIndex *External, std::set<const CallExpr *> DoneAtReturn)
    : Ctx(Ctx), VisitsPerBlock(VisitsPerBlock), External(External), DoneAtReturn(std::move(DoneAtReturn)) {
  for (const FunctionCalls &F : Functions) {
    ByDecl[F.Function] = &F;
    if (isMain(dyn_cast<FunctionDecl>(F.Function)))
      ClosedUnit = true;
  }
  // Streams created non-blocking here: a legacy-stream copy does not wait for them.
  for (const FunctionCalls &F : Functions)
    for (const WorkCall &W : F.Calls) {
      if (!W.Api || W.Api->Family != ApiFamily::StreamCreate || W.Api->FlagsArg < 0 ||
          static_cast<unsigned>(W.Api->FlagsArg) >= W.Call->getNumArgs() || !W.Call->getNumArgs())
        continue;
      Expr::EvalResult Flags;
      const Expr *FlagsArg = W.Call->getArg(W.Api->FlagsArg);
      if (!FlagsArg->isValueDependent() && FlagsArg->EvaluateAsInt(Flags, Ctx) &&
          (Flags.Val.getInt().getExtValue() & 1))
        if (const Decl *D = namedDecl(W.Call->getArg(0)))
          NonBlockingStreams.push_back(D);
    }

  // Captures need only the streams created non-blocking (above) of the flow.
  Captures = std::make_unique<CaptureRegions>(
      Functions, [this](const Decl *Stream) { return createdNonBlocking(Stream); }, Ctx);

  // Functions that reach CUDA: the ones with CUDA calls, and their callers.
  std::set<const Decl *> Relevant;
  for (const FunctionCalls &F : Functions)
    for (const WorkCall &W : F.Calls)
      if (W.Api || W.isLaunch() || W.Library || W.Tensor || (W.External && !W.External->trivial())) {
        Relevant.insert(F.Function);
        break;
      }
  if (External)
    for (const FunctionCalls &F : Functions)
      if (!External->callersOf(usrOf(F.Function)).empty())
        Relevant.insert(F.Function);
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const FunctionCalls &F : Functions)
      if (!Relevant.count(F.Function))
        for (const WorkCall &W : F.Calls)
          if (W.Helper && Relevant.count(W.Helper)) {
            Relevant.insert(F.Function);
            Grew = true;
            break;
          }
  }

  // Callees first; a recursive call is analyzed without its callee's summary.
  std::set<const Decl *> Done, Active;
  std::function<void(const FunctionCalls &)> Visit = [&](const FunctionCalls &F) {
    if (Done.count(F.Function) || Active.count(F.Function))
      return;
    Active.insert(F.Function);
    for (const WorkCall &W : F.Calls)
      if (W.Helper && Relevant.count(W.Helper))
        if (auto It = ByDecl.find(W.Helper); It != ByDecl.end())
          Visit(*It->second);
    Active.erase(F.Function);
    Done.insert(F.Function);
    analyze(F);
  };
  for (const FunctionCalls &F : Functions)
    if (Relevant.count(F.Function))
      Visit(F);
  computeCallerWork();
}

namespace {

// A call that leaves GPU work running when it returns: a launch, an API or library call
// that issues work without waiting for it, a helper (or another unit's function) whose
// summary leaves work - unless the call is a copy that returns only once it is done.
bool generatesWork(const WorkFlow &Flow, const WorkCall &W, ASTContext &Ctx) {
  bool Generates = W.isLaunch() || (W.Api && isGeneratingApi(*W.Api)) ||
                   (W.Library && !libraryStreamOf(*W.Call, *W.Library, Ctx).Waits);
  if (W.Helper)
    if (const FunctionSummary *S = Flow.summary(W.Helper))
      Generates = S->LeavesWork != nullptr;
  if (W.External)
    Generates = W.External->LeftOn != ExportedFunction::Left::None;
  if (Flow.doneAtReturn(W))
    Generates = false;
  return Generates;
}

// What a function tells its callers (FunctionSummary), from its calls and the work in
// flight at its exit (Exit: the fixpoint's state there): whether it waits, the streams it
// drains, the work it leaves running and where.
FunctionSummary summarize(const WorkFlow &Flow, const FunctionCalls &F, const std::vector<Origin> &Origins,
                          const WorkState &Exit) {
  FunctionSummary Sum;
  for (const WorkCall &W : F.Calls) {
    if (Sum.Waits)
      break;
    if (W.HostWaits || W.PollsToCompletion || (W.External && W.External->Waits))
      Sum.Waits = &W;
    else if (W.Helper)
      if (const FunctionSummary *S = Flow.summary(W.Helper); S && S->Waits)
        Sum.Waits = &W;
  }
  for (const WorkCall &W : F.Calls)
    if (W.Api && W.Api->Drains == Drain::Stream) {
      Queue Q = Flow.queueOf(W);
      if (Q.K == Queue::Named && !isa<ParmVarDecl>(Q.Stream))
        Sum.DrainsNamed.push_back(Q);
    }
  if (Exit.Reached) {
    std::optional<Queue> Left;
    bool Mixed = false;
    for (unsigned I = 0; I < Origins.size(); ++I) {
      const Origin &O = Origins[I];
      if (!Exit.May.test(I))
        continue;
      if (O.Entry)
        continue;
      if (!Sum.LeavesWork)
        Sum.LeavesWork = O.Work;
      if (Left && !(*Left == O.Q))
        Mixed = true;
      Left = O.Q;
    }
    if (Left && !Mixed) {
      Sum.LeftOn = *Left;
      if (Left->K == Queue::Named)
        if (const auto *P = dyn_cast<ParmVarDecl>(Left->Stream))
          Sum.LeftOnParam = static_cast<int>(P->getFunctionScopeIndex());
    }
    Sum.DrainsAll = !Exit.May.test(0);
    for (unsigned I = 1; I < Origins.size(); ++I)
      if (Origins[I].Entry && !Exit.May.test(I))
        Sum.DrainsParams.push_back(static_cast<unsigned>(Origins[I].Param));
  } else {
    Sum.DrainsAll = false; // never returns: nothing after the call runs
  }
  return Sum;
}

// The stream handle a condition tests for null, if it does: `s`, `!s`, `s != nullptr`,
// `s == 0`. NullWhenTrue: the condition holds when the handle is null.
const Expr *streamHandleTested(const Expr *Cond, bool &NullWhenTrue, ASTContext &Ctx) {
  if (!Cond)
    return nullptr;
  const Expr *C = Cond->IgnoreParenImpCasts();
  NullWhenTrue = false;
  if (isStreamType(C->getType()))
    return C;
  if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot) {
    const Expr *Sub = U->getSubExpr()->IgnoreParenImpCasts();
    NullWhenTrue = true;
    return isStreamType(Sub->getType()) ? Sub : nullptr;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(C); B && (B->getOpcode() == BO_NE || B->getOpcode() == BO_EQ)) {
    const Expr *L = B->getLHS()->IgnoreParenImpCasts(), *R = B->getRHS()->IgnoreParenImpCasts();
    auto IsNull = [&](const Expr *E) {
      return E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
    };
    NullWhenTrue = B->getOpcode() == BO_EQ;
    if (isStreamType(L->getType()) && IsNull(R))
      return L;
    if (isStreamType(R->getType()) && IsNull(L))
      return R;
  }
  return nullptr;
}

} // namespace

void WorkFlow::analyze(const FunctionCalls &F) {
  const auto *FD = dyn_cast<FunctionDecl>(F.Function);
  // Uninstantiated templates have no types to reason with; their instantiations do.
  if (!FD || FD->isDependentContext() || !FD->hasBody())
    return;
  auto *FS = new FunctionState;
  States[F.Function] = FS;
  InOrder.push_back(FS);
  FS->F = &F;
  FS->FD = FD;
  FS->Origins.push_back(Origin{nullptr, Queue{}, -1, true});
  for (unsigned P = 0; P < FD->getNumParams(); ++P)
    if (isStreamType(FD->getParamDecl(P)->getType()))
      FS->Origins.push_back(Origin{nullptr, Queue{Queue::Named, FD->getParamDecl(P)->getCanonicalDecl()},
                                   static_cast<int>(P), true});
  for (const WorkCall &W : F.Calls) {
    if (!generatesWork(*this, W, Ctx) || Captures->capturedWork(W, queueOf(W)))
      continue;
    FS->GenOf[&W] = FS->Origins.size();
    FS->Origins.push_back(Origin{&W, queueOf(W), -1, false});
  }
  FS->EntryCtx.assign(FS->Origins.size(), CallerWork::None);
  FS->EntryWitness.assign(FS->Origins.size(), {nullptr, nullptr});
  FS->EntryElsewhere.assign(FS->Origins.size(), {nullptr, nullptr});

  const Stmt *Body = FD->getBody();
  CFG::BuildOptions Opts;
  Opts.setAllAlwaysAdd();
  Opts.AddImplicitDtors = true;  // a local object's destructor is a call at its scope's end
  std::unique_ptr<CFG> G = CFG::buildCFG(FD, const_cast<Stmt *>(Body), &Ctx, Opts);
  if (!G)
    return;
  std::map<const Stmt *, const WorkCall *> ByCall;
  std::map<const VarDecl *, const WorkCall *> ByDestroyed;
  for (const WorkCall &W : F.Calls) {
    if (W.Destroys)
      ByDestroyed[W.Destroys] = &W;
    else
      ByCall[W.Trigger ? W.Trigger : W.Call] = &W;
  }
  WorkTransfer T(FS->Origins, FS->GenOf, Ctx, *this, NonBlockingStreams, DoneAtReturn);
  // The calls of a block, in order.
  auto CallsOf = [&](const CFGBlock &B, const std::function<void(const WorkCall &)> &Each) {
    for (const CFGElement &E : B)
      if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>()) {
        if (auto It = ByCall.find(CS->getStmt()); It != ByCall.end())
          Each(*It->second);
      } else if (std::optional<CFGAutomaticObjDtor> D = E.getAs<CFGAutomaticObjDtor>()) {
        if (auto It = ByDestroyed.find(D->getVarDecl()); It != ByDestroyed.end())
          Each(*It->second);
      }
  };
  WorkState Entry;
  Entry.Reached = true;
  Entry.May.resize(FS->Origins.size());
  Entry.Must.resize(FS->Origins.size());
  for (unsigned I = 0; I < FS->Origins.size(); ++I)
    if (FS->Origins[I].Entry)
      Entry.May.set(I);
  // `if (s)` / `if (s != nullptr)`: on the edge where the stream handle is null, nothing runs
  // on it (ggml drains its streams with `if (streams[i]) cudaStreamSynchronize(streams[i])`).
  auto NullStreamEdge = [&](const CFGBlock &B, unsigned Succ, WorkState &S) {
    const auto *If = dyn_cast_or_null<IfStmt>(B.getTerminatorStmt());
    bool NullWhenTrue = false;
    const Expr *Handle = If ? streamHandleTested(If->getCond(), NullWhenTrue, Ctx) : nullptr;
    if (!Handle || (Succ == 0) != NullWhenTrue)
      return;
    StreamArg A{Handle, classifyStreamArg(Handle, Ctx)};
    if (A.Kind == StreamArgKind::Explicit)
      T.nullStream(queueOfStreamArg(A, false, Ctx), S);
  };
  FlowSolution Solution = solveForward(*G, Entry, [&](const CFGBlock &B, WorkState S) {
    CallsOf(B, [&](const WorkCall &W) { T.apply(W, S); });
    return S;
  }, VisitsPerBlock, NullStreamEdge);
  if (!Solution.Complete) {
    Unfinished.push_back({FD, Solution.Limit});
    return;  // no state at its calls: they are not judged, and the checks say so
  }
  // The state before each call, and what it waited for, once the fixpoint is known.
  for (const CFGBlock *B : *G) {
    WorkState S = Solution.In[B->getBlockID()];
    if (!S.Reached)
      continue;
    CallsOf(*B, [&](const WorkCall &W) {
      FS->Before[&W] = S;
      T.drain(W, S);
      FS->WaitedAt[&W] = T.waited(W, FS->Before[&W], S);
      T.generate(W, S);
    });
  }
  const WorkState &Exit = Solution.In[G->getExit().getBlockID()];

  FunctionSummary Sum = summarize(*this, F, FS->Origins, Exit);
  Summaries[F.Function] = Sum;
}

// What callers left running when each function starts: from its call sites here, or
// unknown when they are not all here. Monotone over None < Unknown < Known.
void WorkFlow::computeCallerWork() {
  for (FunctionState *FS : InOrder)
    for (const WorkCall &W : FS->F->Calls)
      if (W.Helper)
        if (auto It = States.find(W.Helper); It != States.end())
          It->second->Callers.push_back(&W);
  std::map<const WorkCall *, FunctionState *> Owner;
  for (FunctionState *FS : InOrder)
    for (const WorkCall &W : FS->F->Calls)
      Owner[&W] = FS;

  for (FunctionState *FS : InOrder) {
    bool Open = !ClosedUnit && FS->FD->isExternallyVisible();
    CallerWork Base = isMain(FS->FD) ? CallerWork::None
                      : FS->Callers.empty() || Open ? CallerWork::Unknown
                                                    : CallerWork::None;
    for (unsigned I = 0; I < FS->Origins.size(); ++I)
      if (FS->Origins[I].Entry)
        FS->EntryCtx[I] = Base;
  }
  auto Raise = [](FunctionState &FS, unsigned I, CallerWork C, const WorkCall *Site,
                  const WorkCall *Pend, std::pair<const ExternalCall *, const ExternalCall::Work *> Elsewhere = {}) {
    if (static_cast<int>(C) <= static_cast<int>(FS.EntryCtx[I]))
      return false;
    FS.EntryCtx[I] = C;
    FS.EntryWitness[I] = {Site, Pend};
    FS.EntryElsewhere[I] = Elsewhere;
    return true;
  };
  // Calls from other units that left work running (their summaries): the entry item of
  // the stream parameter that work's stream went to, or "everything else".
  if (External)
    for (FunctionState *FS : InOrder)
      for (const ExternalCall &Site : External->callersOf(usrOf(FS->FD)))
        for (const ExternalCall::Work &Work : Site.InFlight) {
          unsigned Target = 0;
          for (unsigned I = 1; I < FS->Origins.size(); ++I)
            if (FS->Origins[I].Entry && FS->Origins[I].Param == Work.Param)
              Target = I;
          Raise(*FS, Target, CallerWork::Known, nullptr, nullptr, {&Site, &Work});
        }
  // Raise only goes up a three-step order per entry item: the rounds end by themselves.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (FunctionState *Callee : InOrder)
      for (const WorkCall *Site : Callee->Callers) {
        // A call on an error path (the cleanup after a failed allocation) runs once, when
        // something already failed: what its caller left running is no reason to warn.
        if (onErrorPath(Site->Call, Ctx))
          continue;
        FunctionState &Caller = *Owner.at(Site);
        auto B = Caller.Before.find(Site);
        if (B == Caller.Before.end())
          continue;
        for (unsigned J = 0; J < Caller.Origins.size(); ++J) {
          if (!B->second.May.test(J))
            continue;
          const Origin &O = Caller.Origins[J];
          // Which entry item of the callee this work becomes: the stream parameter that
          // receives its stream, or "everything else".
          unsigned Target = 0;
          for (unsigned I = 1; I < Callee->Origins.size(); ++I)
            if (Callee->Origins[I].Entry && O.Q.K == Queue::Named &&
                argQueue(*Site, static_cast<unsigned>(Callee->Origins[I].Param), Ctx) == O.Q)
              Target = I;
          if (!O.Entry)
            Changed |= Raise(*Callee, Target, CallerWork::Known, Site, O.Work);
          else
            Changed |= Raise(*Callee, Target, Caller.EntryCtx[J], Caller.EntryWitness[J].first
                                 ? Caller.EntryWitness[J].first : Site,
                             Caller.EntryWitness[J].second, Caller.EntryElsewhere[J]);
        }
      }
  }

  for (FunctionState *FS : InOrder)
    for (const WorkCall &W : FS->F->Calls) {
      auto B = FS->Before.find(&W);
      if (B == FS->Before.end())
        continue;
      const llvm::BitVector &Waits = FS->WaitedAt.at(&W);
      CallFlow Flow;
      bool StreamParams = false, StreamParamLive = false;
      for (unsigned I = 0; I < FS->Origins.size(); ++I) {
        const Origin &O = FS->Origins[I];
        if (O.Entry && O.Param >= 0) {
          StreamParams = true;
          StreamParamLive |= B->second.May.test(I);
        }
        if (!B->second.May.test(I))
          continue;
        if (O.Entry) {
          if (static_cast<int>(FS->EntryCtx[I]) > static_cast<int>(Flow.Caller)) {
            Flow.Caller = FS->EntryCtx[I];
            Flow.CallerSite = FS->EntryWitness[I].first;
            Flow.CallerPending = FS->EntryWitness[I].second;
            std::tie(Flow.CallerElsewhere, Flow.CallerElsewhereWork) = FS->EntryElsewhere[I];
          }
          continue;
        }
        if (O.Work == &W)
          continue;
        Pending P{O.Work, B->second.Must.test(I)};
        Flow.InFlight.push_back(P);
        if (Waits.test(I))
          Flow.Waited.push_back(P);
      }
      Flow.CallerStreamsDrained = StreamParams && !StreamParamLive;
      Flows[&W] = std::move(Flow);
    }
}

} // namespace syncwatch
