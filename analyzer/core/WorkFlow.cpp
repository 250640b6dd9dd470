#include "WorkFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "clang/Analysis/FlowSensitive/DataflowWorklist.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/BitVector.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>

using namespace clang;

namespace syncwatch {

namespace {

// The declaration a stream or event expression names: a variable, a parameter, a member
// (of any object), or the array an element is taken from. nullptr for anything else.
const Decl *namedDecl(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
    return namedDecl(U->getSubExpr());
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    return D->getDecl()->getCanonicalDecl();
  if (const auto *M = dyn_cast<MemberExpr>(E))
    return M->getMemberDecl()->getCanonicalDecl();
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    return namedDecl(A->getBase());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E); Op && Op->getOperator() == OO_Subscript)
    return namedDecl(Op->getArg(0)); // std::vector<cudaStream_t> / std::array
  return nullptr;
}

// An event as the source names it: its declaration and, for an element, the index as
// written (ev[b] and ev[(b + 1) % 2] are different events).
using EventKey = std::pair<const Decl *, std::string>;

bool isConstantIndex(const std::string &Index) {
  return !Index.empty() && std::all_of(Index.begin(), Index.end(), [](char C) { return C >= '0' && C <= '9'; });
}

// The index of an array element as written, or "".
std::string indexText(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
    E = U->getSubExpr()->IgnoreParenImpCasts();
  const Expr *Index = nullptr;
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    Index = A->getIdx();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E); Op && Op->getOperator() == OO_Subscript)
    Index = Op->getArg(1);
  if (!Index)
    return {};
  return Lexer::getSourceText(CharSourceRange::getTokenRange(Index->getSourceRange()),
                              Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

std::optional<EventKey> eventKey(const Expr *E, ASTContext &Ctx) {
  const Decl *D = namedDecl(E);
  if (!D)
    return std::nullopt;
  return EventKey{D, indexText(E, Ctx)};
}

// A local copy of another stream (cudaStream_t s = streams[i % 2]) is that stream; one
// chosen at run time (t % 2 ? a : b) is a stream we cannot name.
Queue namedQueue(const Decl *D, int Depth = 0) {
  const auto *V = dyn_cast<VarDecl>(D);
  if (!V || !V->isLocalVarDecl() || !V->getInit() || Depth > 4)
    return {Queue::Named, D};
  const Expr *Init = V->getInit()->IgnoreParenImpCasts();
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr, IntegerLiteral>(Init))
    return {Queue::Named, D};
  if (const Decl *Source = namedDecl(Init))
    return namedQueue(Source, Depth + 1);
  return {Queue::Unknown, nullptr};
}

Queue queueOfStreamArg(const StreamArg &S, bool PerThreadDefault, ASTContext &Ctx) {
  switch (S.Kind) {
  case StreamArgKind::Omitted:
  case StreamArgKind::Null:
  case StreamArgKind::FlagAsStream:
    return {PerThreadDefault ? Queue::PerThread : Queue::Legacy, nullptr};
  case StreamArgKind::Legacy:
    return {Queue::Legacy, nullptr};
  case StreamArgKind::PerThread:
    return {Queue::PerThread, nullptr};
  case StreamArgKind::Explicit:
    if (const Decl *D = namedDecl(S.Expr)) {
      Queue Q = namedQueue(D);
      if (Q.K == Queue::Named && Q.Stream == D)
        Q.Index = indexText(S.Expr, Ctx);
      return Q;
    }
    return {Queue::Unknown, nullptr};
  }
  return {};
}

// One work item of the dataflow.
struct Origin {
  const WorkCall *Work = nullptr;  // nullptr for the callers' work (entry items)
  Queue Q;
  int Param = -1;                  // entry item of this stream parameter
  bool Entry = false;
  bool callersOther() const { return Entry && Param < 0; }
};

// A must-map's join: keys on both sides, bits on both sides.
template <typename Key> void intersect(std::map<Key, llvm::BitVector> &Mine,
                                       const std::map<Key, llvm::BitVector> &Theirs) {
  for (auto It = Mine.begin(); It != Mine.end();) {
    auto Other = Theirs.find(It->first);
    if (Other == Theirs.end()) {
      It = Mine.erase(It);
      continue;
    }
    It->second &= Other->second;
    ++It;
  }
}

struct State {
  bool Reached = false;
  llvm::BitVector May, Must;
  std::map<EventKey, llvm::BitVector> Cover;  // must: recorded on every path
  // cudaStreamWaitEvent(s, e): work e covers finishes before s's later work, so draining s
  // drains it too (must, like Cover).
  std::map<const Decl *, llvm::BitVector> Deps;

  bool join(const State &O) {
    if (!O.Reached)
      return false;
    if (!Reached) {
      *this = O;
      return true;
    }
    State Old = *this;
    May |= O.May;
    Must &= O.Must;
    intersect(Cover, O.Cover);
    intersect(Deps, O.Deps);
    return May != Old.May || Must != Old.Must || Cover != Old.Cover || Deps != Old.Deps;
  }
};

bool isGeneratingApi(const ApiInfo &A) {
  switch (A.Family) {
  case ApiFamily::EventRecord:
  case ApiFamily::StreamWaitEvent:
    return false; // markers, not work that occupies the GPU
  case ApiFamily::Memset:
    return true;  // cudaMemset runs on the legacy stream and returns at once
  case ApiFamily::Copy:
    // A synchronous copy waits for itself; a legacy-stream copy that returns at once
    // (cuMemcpyDtoD) leaves work running.
    return A.takesStream() || A.Documented != DocumentedSync::LegacyStreamHostWait;
  default:
    return issuesStreamWork(A);
  }
}

} // namespace

struct WorkFlow::FunctionState {
  const FunctionCalls *F = nullptr;
  const FunctionDecl *FD = nullptr;
  std::vector<Origin> Origins;
  std::map<const WorkCall *, unsigned> GenOf;
  std::map<const WorkCall *, State> Before;
  std::map<const WorkCall *, llvm::BitVector> WaitedAt;  // what each call waits for
  std::vector<CallerWork> EntryCtx;                      // per origin (entry items only)
  std::vector<std::pair<const WorkCall *, const WorkCall *>> EntryWitness;
  std::vector<const WorkCall *> Callers;                 // call sites in this unit
};

namespace {

Queue argQueue(const WorkCall &W, unsigned P, ASTContext &Ctx);

class Analysis {
public:
  Analysis(WorkFlow::FunctionState &FS, ASTContext &Ctx, const WorkFlow &Flow,
           const std::vector<const Decl *> &NonBlocking)
      : FS(FS), Ctx(Ctx), Flow(Flow), NonBlocking(NonBlocking) {}

  bool run() {
    const Stmt *Body = FS.FD->getBody();
    if (!Body)
      return false;
    CFG::BuildOptions Opts;
    Opts.setAllAlwaysAdd();
    std::unique_ptr<CFG> G = CFG::buildCFG(FS.FD, const_cast<Stmt *>(Body), &Ctx, Opts);
    if (!G)
      return false;
    std::map<const Stmt *, const WorkCall *> ByCall;
    for (const WorkCall &W : FS.F->Calls)
      ByCall[W.Call] = &W;

    std::vector<State> In(G->getNumBlockIDs());
    // Loop headers also keep the state that comes around their back edges: the exit edge
    // takes only that one once the body ran, so a loop whose body drains everything is
    // not taken to skip it (an unknown trip count is at least one, not zero).
    std::vector<State> BackIn(G->getNumBlockIDs());
    auto LoopOf = [](const CFGBlock &B) -> const Stmt * {
      const Stmt *T = B.getTerminatorStmt();
      return T && isa<ForStmt, WhileStmt, CXXForRangeStmt>(T) ? T : nullptr;
    };
    State &Entry = In[G->getEntry().getBlockID()];
    Entry.Reached = true;
    Entry.May.resize(FS.Origins.size());
    Entry.Must.resize(FS.Origins.size());
    for (unsigned I = 0; I < FS.Origins.size(); ++I)
      if (FS.Origins[I].Entry)
        Entry.May.set(I);

    PostOrderCFGView POV(G.get());
    ForwardDataflowWorklist Work(*G, &POV);
    Work.enqueueBlock(&G->getEntry());
    auto Replay = [&](const CFGBlock &B, State S, bool Record) {
      for (const CFGElement &E : B)
        if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
          if (auto It = ByCall.find(CS->getStmt()); It != ByCall.end()) {
            llvm::BitVector Wait(FS.Origins.size());
            if (Record) {
              FS.Before[It->second] = S;
              Waited = &Wait;
            }
            transfer(*It->second, S);
            Waited = nullptr;
            if (Record)
              FS.WaitedAt[It->second] = Wait;
          }
      return S;
    };
    // The lattice is finite and every transfer monotone; the bound only guards against a
    // CFG we did not expect.
    unsigned Budget = 64 * G->getNumBlockIDs() + 64;
    // Headers whose body never came back around (it always breaks or returns): their
    // exit edge takes the entry state after all.
    std::set<const CFGBlock *> ExitFromEntry;
    for (;;) {
      while (const CFGBlock *B = Work.dequeue()) {
        if (!Budget--)
          break;
        State Out = Replay(*B, In[B->getBlockID()], false);
        const Stmt *Loop = LoopOf(*B);
        bool Around = Loop && BackIn[B->getBlockID()].Reached;
        State OutAround = Around ? Replay(*B, BackIn[B->getBlockID()], false) : Out;
        unsigned Index = 0;
        for (const CFGBlock *Succ : B->succs()) {
          bool ExitEdge = Loop && Index++ == 1;
          // exit(), abort(), a throw: the error paths of CUDA_CHECK macros end the
          // program, they do not return to the caller with work in flight.
          if (!Succ || (Succ == &G->getExit() && B->hasNoReturnElement()))
            continue;
          if (ExitEdge && !Around && !ExitFromEntry.count(B))
            continue;
          const State &Sent = ExitEdge ? OutAround : Out;
          bool Changed = In[Succ->getBlockID()].join(Sent);
          if (const Stmt *Target = LoopOf(*Succ); Target && B->getLoopTarget() == Target)
            Changed |= BackIn[Succ->getBlockID()].join(Sent);
          if (Changed)
            Work.enqueueBlock(Succ);
        }
      }
      bool More = false;
      for (const CFGBlock *B : *G)
        if (LoopOf(*B) && In[B->getBlockID()].Reached && !BackIn[B->getBlockID()].Reached &&
            ExitFromEntry.insert(B).second) {
          Work.enqueueBlock(B);
          More = true;
        }
      if (!More || !Budget)
        break;
    }
    for (const CFGBlock *B : *G)
      if (In[B->getBlockID()].Reached)
        Replay(*B, In[B->getBlockID()], true);
    Exit = In[G->getExit().getBlockID()];
    return true;
  }

  State Exit;

private:
  bool nonBlocking(const Decl *D) const {
    return std::find(NonBlocking.begin(), NonBlocking.end(), D) != NonBlocking.end();
  }

  // Whether a host wait for queue Q also waits for origin O.
  bool drainedBy(const Queue &Q, const Origin &O) const {
    if (O.callersOther())
      return Q.K == Queue::Legacy || Q.K == Queue::Unknown;
    if (O.Q.K == Queue::Unknown)
      return true;  // any wait may be the one that covers it
    switch (Q.K) {
    case Queue::Legacy:
      // The legacy stream waits for every blocking stream's earlier work.
      return O.Q.K != Queue::Named || !nonBlocking(O.Q.Stream);
    case Queue::PerThread:
      return O.Q.K == Queue::PerThread;
    case Queue::Named:
      // A blocking stream's work waits for earlier legacy-stream work, so once it is done
      // that legacy work is too.
      if (O.Q.K == Queue::Named && O.Q.Stream == Q.Stream)
        // Elements of one array of streams: streams[i] in a loop waits for them all;
        // streams[0] waits for streams[0] only.
        return O.Q.Index == Q.Index || !isConstantIndex(Q.Index);
      return O.Q.K == Queue::Legacy && !nonBlocking(Q.Stream);
    case Queue::Unknown:
      return false;
    }
    return false;
  }

  bool drainedByLegacyCopy(const Origin &O, bool PerThreadBuild) const {
    if (PerThreadBuild)
      return O.Q.K == Queue::PerThread || O.Q.K == Queue::Unknown || O.callersOther();
    return drainedBy(Queue{Queue::Legacy, nullptr}, O);
  }

  template <typename Pred> void kill(State &S, Pred P) const {
    for (unsigned I = 0; I < FS.Origins.size(); ++I)
      if (P(FS.Origins[I])) {
        if (Waited && S.May.test(I))
          Waited->set(I);
        S.May.reset(I);
        S.Must.reset(I);
      }
  }

public:
  // Set during the recording pass: what the current call waits for, in full or in part.
  mutable llvm::BitVector *Waited = nullptr;

private:
  void drainQueue(State &S, const Queue &Q) const {
    // Another element of the same array of streams (streams[0] for work on streams[k]):
    // the wait covers part of that work, not all of it.
    if (Waited && Q.K == Queue::Named)
      for (unsigned I = 0; I < FS.Origins.size(); ++I)
        if (S.May.test(I) && FS.Origins[I].Q.K == Queue::Named && FS.Origins[I].Q.Stream == Q.Stream)
          Waited->set(I);
    kill(S, [&](const Origin &O) { return drainedBy(Q, O); });
    if (Q.K == Queue::Named)
      if (auto It = S.Deps.find(Q.Stream); It != S.Deps.end())
        killBits(S, It->second);
  }

  // Drains the work items set in Bits (an event's cover, a stream's event dependencies).
  void killBits(State &S, const llvm::BitVector &Bits) const {
    kill(S, [&](const Origin &O) {
      unsigned I = static_cast<unsigned>(&O - FS.Origins.data());
      return I < Bits.size() && Bits.test(I);
    });
  }

  void transfer(const WorkCall &W, State &S) const {
    if (W.Api) {
      const ApiInfo &A = *W.Api;
      switch (A.Family) {
      case ApiFamily::DeviceSync:
        kill(S, [](const Origin &) { return true; });
        break;
      case ApiFamily::DeviceFree:
      case ApiFamily::HostFree:
      case ApiFamily::HostUnregister:
      case ApiFamily::DeviceConfig:
        // Measured: these wait until the whole device is idle (implicit-sync reports them
        // where that costs something); after them nothing is in flight.
        if (A.Measured == MeasuredSync::BlocksDevice)
          kill(S, [](const Origin &) { return true; });
        break;
      case ApiFamily::StreamQuery:
        if (!W.PollsToCompletion)
          break;
        [[fallthrough]];
      case ApiFamily::StreamSync:
        drainQueue(S, Flow.queueOf(W));
        break;
      case ApiFamily::EventQuery:
        if (!W.PollsToCompletion)
          break;
        [[fallthrough]];
      case ApiFamily::EventSync: {
        std::optional<EventKey> K =
            W.Call->getNumArgs() ? eventKey(W.Call->getArg(0), Ctx) : std::nullopt;
        auto It = K ? S.Cover.find(*K) : S.Cover.end();
        if (It != S.Cover.end()) {
          llvm::BitVector Covered = It->second;  // kill() may not touch the map it reads
          killBits(S, Covered);
        } else {
          // Recorded where we cannot see: it covers work we cannot name.
          kill(S, [](const Origin &O) { return O.Q.K == Queue::Unknown; });
        }
        break;
      }
      case ApiFamily::EventRecord: {
        std::optional<EventKey> K =
            W.Call->getNumArgs() ? eventKey(W.Call->getArg(0), Ctx) : std::nullopt;
        if (!K)
          break;
        Queue Q = Flow.queueOf(W);
        llvm::BitVector Covered(FS.Origins.size());
        for (unsigned I = 0; I < FS.Origins.size(); ++I)
          if (S.May.test(I) && drainedBy(Q, FS.Origins[I]))
            Covered.set(I);
        S.Cover[*K] = Covered;
        break;
      }
      case ApiFamily::StreamWaitEvent: {
        std::optional<EventKey> K =
            W.Call->getNumArgs() > 1 ? eventKey(W.Call->getArg(1), Ctx) : std::nullopt;
        Queue Q = Flow.queueOf(W);
        if (!K || Q.K != Queue::Named)
          break;
        auto It = S.Cover.find(*K);
        if (It == S.Cover.end())
          break;
        llvm::BitVector &D = S.Deps[Q.Stream];
        D.resize(FS.Origins.size());
        D |= It->second;
        break;
      }
      case ApiFamily::Copy:
      case ApiFamily::Memset:
        if (W.HostWaits || (A.Family == ApiFamily::Copy && !A.takesStream() &&
                            A.Documented == DocumentedSync::LegacyStreamHostWait)) {
          bool PerThread = usesPerThreadDefaultStream(*W.Call, Ctx);
          kill(S, [&](const Origin &O) { return drainedByLegacyCopy(O, PerThread); });
        }
        break;
      default:
        break;
      }
    } else if (W.Library) {
      // thrust's synchronous policies wait for their stream at the end of the algorithm.
      if (libraryStreamOf(*W.Call, *W.Library, Ctx).Waits)
        drainQueue(S, Flow.queueOf(W));
    } else if (W.OpaqueWithStream) {
      for (const Expr *Arg : W.Call->arguments())
        if (isStreamType(Arg->getType()))
          drainQueue(S, queueOfStreamArg(StreamArg{Arg, classifyStreamArg(Arg, Ctx)},
                                         usesPerThreadDefaultStream(*W.Call, Ctx), Ctx));
    } else if (W.Helper) {
      if (const FunctionSummary *Sum = Flow.summary(W.Helper)) {
        if (Sum->DrainsAll)
          kill(S, [](const Origin &) { return true; });
        for (unsigned P : Sum->DrainsParams)
          drainQueue(S, argQueue(W, P, Ctx));
        for (const Queue &Q : Sum->DrainsNamed)
          drainQueue(S, Q);
      }
    }
    if (auto It = FS.GenOf.find(&W); It != FS.GenOf.end()) {
      S.May.set(It->second);
      S.Must.set(It->second);
    }
  }

  WorkFlow::FunctionState &FS;
  ASTContext &Ctx;
  const WorkFlow &Flow;
  const std::vector<const Decl *> &NonBlocking;
};

bool isMain(const FunctionDecl *FD) { return FD && FD->isMain(); }

// The queue of the stream a helper's parameter P receives at this call site.
Queue argQueue(const WorkCall &W, unsigned P, ASTContext &Ctx) {
  unsigned Offset = isa<CXXOperatorCallExpr>(W.Call) && isa<CXXMethodDecl>(W.Helper) ? 1 : 0;
  if (P + Offset >= W.Call->getNumArgs())
    return {};
  const Expr *Arg = W.Call->getArg(P + Offset);
  StreamArg S{Arg, classifyStreamArg(Arg, Ctx)};
  return queueOfStreamArg(S, usesPerThreadDefaultStream(*W.Call, Ctx), Ctx);
}

} // namespace

Queue WorkFlow::queueOf(const WorkCall &C) const {
  if (C.Helper) {
    const FunctionSummary *S = summary(C.Helper);
    if (!S || !S->LeavesWork)
      return {};
    if (S->LeftOnParam >= 0)
      return argQueue(C, static_cast<unsigned>(S->LeftOnParam), Ctx);
    return S->LeftOn;
  }
  bool PerThread = usesPerThreadDefaultStream(*C.Call, Ctx);
  if (C.Library) {
    LibraryStream LS = libraryStreamOf(*C.Call, *C.Library, Ctx);
    if (LS.K == LibraryStream::Default)
      return {PerThread ? Queue::PerThread : Queue::Legacy, nullptr};
    if (LS.K == LibraryStream::Given)
      return queueOfStreamArg(StreamArg{LS.Stream, classifyStreamArg(LS.Stream, Ctx)}, PerThread, Ctx);
    return {};
  }
  std::optional<StreamArg> S = streamArgOf(*C.Call, C.Api, Ctx);
  if (!S) {
    // No stream argument: synchronous copies and memsets run on the default stream;
    // cudaLaunchKernelEx names its stream inside a config struct.
    if (C.Api && C.Api->issuesOnLegacyStream())
      return {PerThread ? Queue::PerThread : Queue::Legacy, nullptr};
    return {};
  }
  return queueOfStreamArg(*S, PerThread, Ctx);
}

bool WorkFlow::waitsOnEarlierIteration(const FunctionCalls &F, const WorkCall &Sync,
                                       const Stmt *Loop) const {
  if (!Sync.Api || !Sync.Call->getNumArgs() ||
      (Sync.Api->Family != ApiFamily::EventSync && Sync.Api->Family != ApiFamily::EventQuery))
    return false;
  std::optional<EventKey> K = eventKey(Sync.Call->getArg(0), Ctx);
  if (!K)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  bool RecordedLater = false;
  for (const WorkCall &W : F.Calls) {
    if (!W.Api || W.Api->Family != ApiFamily::EventRecord || !W.Call->getNumArgs() ||
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

WorkFlow::WorkFlow(const std::vector<FunctionCalls> &Functions, ASTContext &Ctx) : Ctx(Ctx) {
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

  // Functions that reach CUDA: the ones with CUDA calls, and their callers.
  std::set<const Decl *> Relevant;
  for (const FunctionCalls &F : Functions)
    for (const WorkCall &W : F.Calls)
      if (W.Api || W.isLaunch() || W.Library) {
        Relevant.insert(F.Function);
        break;
      }
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

void WorkFlow::analyze(const FunctionCalls &F) {
  const auto *FD = dyn_cast<FunctionDecl>(F.Function);
  // Uninstantiated templates have no types to reason with; their instantiations do.
  if (!FD || FD->isDependentContext() || !FD->hasBody())
    return;
  auto *FS = new FunctionState;
  States[F.Function] = FS;
  FS->F = &F;
  FS->FD = FD;
  FS->Origins.push_back(Origin{nullptr, Queue{}, -1, true});
  for (unsigned P = 0; P < FD->getNumParams(); ++P)
    if (isStreamType(FD->getParamDecl(P)->getType()))
      FS->Origins.push_back(Origin{nullptr, Queue{Queue::Named, FD->getParamDecl(P)->getCanonicalDecl()},
                                   static_cast<int>(P), true});
  for (const WorkCall &W : F.Calls) {
    bool Generates = W.isLaunch() || (W.Api && isGeneratingApi(*W.Api)) ||
                     (W.Library && !libraryStreamOf(*W.Call, *W.Library, Ctx).Waits);
    if (W.Helper)
      if (const FunctionSummary *S = summary(W.Helper))
        Generates = S->LeavesWork != nullptr;
    if (!Generates)
      continue;
    FS->GenOf[&W] = FS->Origins.size();
    FS->Origins.push_back(Origin{&W, queueOf(W), -1, false});
  }
  FS->EntryCtx.assign(FS->Origins.size(), CallerWork::None);
  FS->EntryWitness.assign(FS->Origins.size(), {nullptr, nullptr});

  Analysis A(*FS, Ctx, *this, NonBlockingStreams);
  if (!A.run())
    return;

  FunctionSummary Sum;
  for (const WorkCall &W : F.Calls) {
    if (Sum.Waits)
      break;
    if (W.HostWaits || W.PollsToCompletion)
      Sum.Waits = &W;
    else if (W.Helper)
      if (const FunctionSummary *S = summary(W.Helper); S && S->Waits)
        Sum.Waits = &W;
  }
  for (const WorkCall &W : F.Calls)
    if (W.Api && (W.Api->Family == ApiFamily::StreamSync)) {
      Queue Q = queueOf(W);
      if (Q.K == Queue::Named && !isa<ParmVarDecl>(Q.Stream))
        Sum.DrainsNamed.push_back(Q);
    }
  if (A.Exit.Reached) {
    std::optional<Queue> Left;
    bool Mixed = false;
    for (unsigned I = 0; I < FS->Origins.size(); ++I) {
      const Origin &O = FS->Origins[I];
      if (!A.Exit.May.test(I))
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
    Sum.DrainsAll = !A.Exit.May.test(0);
    for (unsigned I = 1; I < FS->Origins.size(); ++I)
      if (FS->Origins[I].Entry && !A.Exit.May.test(I))
        Sum.DrainsParams.push_back(static_cast<unsigned>(FS->Origins[I].Param));
  } else {
    Sum.DrainsAll = false; // never returns: nothing after the call runs
  }
  Summaries[F.Function] = Sum;
}

// What callers left running when each function starts: from its call sites here, or
// unknown when they are not all here. Monotone over None < Unknown < Known.
void WorkFlow::computeCallerWork() {
  for (auto &[D, FS] : States)
    for (const WorkCall &W : FS->F->Calls)
      if (W.Helper)
        if (auto It = States.find(W.Helper); It != States.end())
          It->second->Callers.push_back(&W);
  std::map<const WorkCall *, FunctionState *> Owner;
  for (auto &[D, FS] : States)
    for (const WorkCall &W : FS->F->Calls)
      Owner[&W] = FS;

  for (auto &[D, FS] : States) {
    bool Open = !ClosedUnit && FS->FD->isExternallyVisible();
    CallerWork Base = isMain(FS->FD) ? CallerWork::None
                      : FS->Callers.empty() || Open ? CallerWork::Unknown
                                                    : CallerWork::None;
    for (unsigned I = 0; I < FS->Origins.size(); ++I)
      if (FS->Origins[I].Entry)
        FS->EntryCtx[I] = Base;
  }
  auto Raise = [](FunctionState &FS, unsigned I, CallerWork C, const WorkCall *Site,
                  const WorkCall *Pend) {
    if (static_cast<int>(C) <= static_cast<int>(FS.EntryCtx[I]))
      return false;
    FS.EntryCtx[I] = C;
    FS.EntryWitness[I] = {Site, Pend};
    return true;
  };
  for (unsigned Round = 0; Round < 8; ++Round) {
    bool Changed = false;
    for (auto &[D, Callee] : States)
      for (const WorkCall *Site : Callee->Callers) {
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
                             Caller.EntryWitness[J].second);
        }
      }
    if (!Changed)
      break;
  }

  for (auto &[D, FS] : States)
    for (const WorkCall &W : FS->F->Calls) {
      auto B = FS->Before.find(&W);
      if (B == FS->Before.end())
        continue;
      const llvm::BitVector &Waits = FS->WaitedAt.at(&W);
      CallFlow Flow;
      for (unsigned I = 0; I < FS->Origins.size(); ++I) {
        if (!B->second.May.test(I))
          continue;
        const Origin &O = FS->Origins[I];
        if (O.Entry) {
          if (static_cast<int>(FS->EntryCtx[I]) > static_cast<int>(Flow.Caller)) {
            Flow.Caller = FS->EntryCtx[I];
            Flow.CallerSite = FS->EntryWitness[I].first;
            Flow.CallerPending = FS->EntryWitness[I].second;
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
      Flows[&W] = std::move(Flow);
    }
}

} // namespace syncwatch
