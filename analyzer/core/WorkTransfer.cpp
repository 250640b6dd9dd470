#include "WorkTransfer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

using namespace clang;

namespace syncwatch {

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

static bool isConstantIndex(const std::string &Index) {
  return !Index.empty() && std::all_of(Index.begin(), Index.end(), [](char C) { return C >= '0' && C <= '9'; });
}

// The index of an array element as written, or "".
static std::string indexText(const Expr *E, ASTContext &Ctx) {
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
static Queue namedQueue(const Decl *D, int Depth = 0) {
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

Queue argQueue(const WorkCall &W, unsigned P, ASTContext &Ctx) {
  unsigned Offset = isa<CXXOperatorCallExpr>(W.Call) && isa_and_nonnull<CXXMethodDecl>(W.callee()) ? 1 : 0;
  if (P + Offset >= W.Call->getNumArgs())
    return {};
  const Expr *Arg = W.Call->getArg(P + Offset);
  StreamArg S{Arg, classifyStreamArg(Arg, Ctx)};
  return queueOfStreamArg(S, usesPerThreadDefaultStream(*W.Call, Ctx), Ctx);
}

Queue queueOf(const WorkCall &C, const SummaryLookup &Summaries, ASTContext &Ctx) {
  if (C.External) {
    switch (C.External->LeftOn) {
    case ExportedFunction::Left::OnParam:
      return argQueue(C, static_cast<unsigned>(C.External->LeftParam), Ctx);
    case ExportedFunction::Left::Legacy:
      return {Queue::Legacy, nullptr};
    case ExportedFunction::Left::PerThread:
      return {Queue::PerThread, nullptr};
    case ExportedFunction::Left::None:
    case ExportedFunction::Left::Unknown:
      return {};
    }
  }
  if (C.Helper) {
    const FunctionSummary *S = Summaries.summary(C.Helper);
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

bool isGeneratingApi(const ApiInfo &A) {
  // cuda_api.def's Issues column: launches, Async copies, memsets (cudaMemset runs on the
  // legacy stream and returns at once), stream-ordered allocations. Not a synchronous copy,
  // which waits for itself, nor an event, which occupies no GPU.
  return A.leavesWorkRunning();
}

bool WorkTransfer::nonBlocking(const Decl *D) const {
  return std::find(NonBlocking.begin(), NonBlocking.end(), D) != NonBlocking.end();
}

bool WorkTransfer::drainedBy(const Queue &Q, const Origin &O) const {
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

void WorkTransfer::nullStream(const Queue &Q, WorkState &S) const {
  if (Q.K != Queue::Named)
    return;
  // (as a wait for streams[i] in a loop drains every element, so does streams[i] found null)
  kill(S, [&](const Origin &O) {
    return O.Q.K == Queue::Named && O.Q.Stream == Q.Stream && (O.Q.Index == Q.Index || !isConstantIndex(Q.Index));
  });
}

bool WorkTransfer::drainedByLegacyCopy(const Origin &O, bool PerThreadBuild) const {
  if (PerThreadBuild)
    return O.Q.K == Queue::PerThread || O.Q.K == Queue::Unknown || O.callersOther();
  return drainedBy(Queue{Queue::Legacy, nullptr}, O);
}

template <typename Pred> void WorkTransfer::kill(WorkState &S, Pred P) const {
  for (unsigned I = 0; I < Origins.size(); ++I)
    if (P(Origins[I])) {
      S.May.reset(I);
      S.Must.reset(I);
    }
}

void WorkTransfer::killBits(WorkState &S, const llvm::BitVector &Bits) const {
  for (unsigned I = 0; I < Origins.size() && I < Bits.size(); ++I)
    if (Bits.test(I)) {
      S.May.reset(I);
      S.Must.reset(I);
    }
}

void WorkTransfer::drainQueue(WorkState &S, const Queue &Q) const {
  kill(S, [&](const Origin &O) { return drainedBy(Q, O); });
  if (Q.K == Queue::Named || Q.K == Queue::PerThread)
    if (auto It = S.Deps.find(Q.K == Queue::Named ? Q.Stream : nullptr); It != S.Deps.end()) {
      llvm::BitVector Deps = It->second;  // killBits may not touch the map it reads
      killBits(S, Deps);
    }
}

// What a call drains comes from cuda_api.def's Drains column, its event bookkeeping from
// the Issues column; the stream drains (Stream, StreamWhenPolled) are drainedQueues'.
void WorkTransfer::drain(const WorkCall &W, WorkState &S) const {
  if (W.Api) {
    const ApiInfo &A = *W.Api;
    switch (A.Drains) {
    case Drain::Device:
      // cudaDeviceSynchronize, and the calls measured to wait until the whole device is idle
      // (cudaFree, cudaFreeHost, cudaHostUnregister, a changed cudaDeviceSetLimit).
      kill(S, [](const Origin &) { return true; });
      break;
    case Drain::EventWhenPolled:
      if (!W.PollsToCompletion)
        break;
      [[fallthrough]];
    case Drain::Event: {
      std::optional<EventKey> K = W.Call->getNumArgs() ? eventKey(W.Call->getArg(0), Ctx) : std::nullopt;
      auto It = K ? S.Cover.find(*K) : S.Cover.end();
      if (It != S.Cover.end()) {
        llvm::BitVector Covered = It->second;
        killBits(S, Covered);
      } else {
        // Recorded where we cannot see: it covers work we cannot name.
        kill(S, [](const Origin &O) { return O.Q.K == Queue::Unknown; });
      }
      break;
    }
    case Drain::DefaultStream: {
      // A synchronous copy: the legacy stream waits for every blocking stream (under
      // --default-stream per-thread the copy goes to the thread's stream instead).
      bool PerThread = usesPerThreadDefaultStream(*W.Call, Ctx);
      kill(S, [&](const Origin &O) { return drainedByLegacyCopy(O, PerThread); });
      break;
    }
    case Drain::None:
    case Drain::Stream:
    case Drain::StreamWhenPolled:
      break;
    }
    if (A.Issues == IssuedWork::EventMark) {
      // What the event will cover: the work in flight on its stream now.
      std::optional<EventKey> K = W.Call->getNumArgs() ? eventKey(W.Call->getArg(0), Ctx) : std::nullopt;
      if (K) {
        Queue Q = queueOf(W, Summaries, Ctx);
        llvm::BitVector Covered(Origins.size());
        for (unsigned I = 0; I < Origins.size(); ++I)
          if (S.May.test(I) && drainedBy(Q, Origins[I]))
            Covered.set(I);
        S.Cover[*K] = Covered;
      }
    } else if (A.Issues == IssuedWork::EventWait) {
      // The stream's later work waits for what the event covers: a sync of the stream
      // drains that too.
      std::optional<EventKey> K = W.Call->getNumArgs() > 1 ? eventKey(W.Call->getArg(1), Ctx) : std::nullopt;
      Queue Q = queueOf(W, Summaries, Ctx);
      auto It = K && Q.K == Queue::Named ? S.Cover.find(*K) : S.Cover.end();
      if (It != S.Cover.end()) {
        llvm::BitVector &D = S.Deps[Q.Stream];
        D.resize(Origins.size());
        D |= It->second;
      }
    }
  } else if (W.Tensor) {
    // A tensor sync waits for the stream the tensor was made on, PyTorch's current stream,
    // which the source does not name: taken to wait for everything (a missed finding
    // rather than a false one).
    kill(S, [](const Origin &) { return true; });
  } else if (W.Helper) {
    if (const FunctionSummary *Sum = Summaries.summary(W.Helper); Sum && Sum->DrainsAll)
      kill(S, [](const Origin &) { return true; });
  } else if (W.External && W.External->DrainsAll) {
    kill(S, [](const Origin &) { return true; });
  }
  // Stream syncs, polls to completion, thrust's synchronous policies, opaque calls handed a
  // stream, helpers that synchronize a stream.
  for (const Queue &Q : drainedQueues(W))
    drainQueue(S, Q);
}

void WorkTransfer::generate(const WorkCall &W, WorkState &S) const {
  auto It = GenOf.find(&W);
  if (It == GenOf.end())
    return;
  // The per-thread default stream is a blocking stream: its work starts only after the legacy
  // stream's earlier work, so once it is drained that legacy work is done too. Kept as a
  // dependency of the per-thread stream (Deps' key nullptr, a wait-event's kind of cover),
  // so that legacy work issued after its last launch stays in flight.
  if (Origins[It->second].Q.K == Queue::PerThread) {
    llvm::BitVector &D = S.Deps[nullptr];
    D.resize(Origins.size());
    for (unsigned I = 0; I < Origins.size(); ++I)
      if (S.May.test(I) && Origins[I].Q.K == Queue::Legacy && !Origins[I].Entry)
        D.set(I);
  }
  S.May.set(It->second);
  S.Must.set(It->second);
}

std::vector<Queue> WorkTransfer::drainedQueues(const WorkCall &W) const {
  std::vector<Queue> Out;
  if (W.Api) {
    Drain D = W.Api->Drains;
    if (D == Drain::Stream || (D == Drain::StreamWhenPolled && W.PollsToCompletion) || doneAtReturn(W))
      Out.push_back(queueOf(W, Summaries, Ctx));
  } else if (W.Library) {
    // thrust's synchronous policies wait for their stream at the end of the algorithm.
    if (libraryStreamOf(*W.Call, *W.Library, Ctx).Waits)
      Out.push_back(queueOf(W, Summaries, Ctx));
  } else if (W.External) {
    for (unsigned P : W.External->DrainsParams)
      Out.push_back(argQueue(W, P, Ctx));
  } else if (W.OpaqueWithStream) {
    for (const Expr *Arg : W.Call->arguments())
      if (isStreamType(Arg->getType()))
        Out.push_back(queueOfStreamArg(StreamArg{Arg, classifyStreamArg(Arg, Ctx)},
                                       usesPerThreadDefaultStream(*W.Call, Ctx), Ctx));
  } else if (W.Helper) {
    if (const FunctionSummary *Sum = Summaries.summary(W.Helper)) {
      for (unsigned P : Sum->DrainsParams)
        Out.push_back(argQueue(W, P, Ctx));
      Out.insert(Out.end(), Sum->DrainsNamed.begin(), Sum->DrainsNamed.end());
    }
  }
  return Out;
}

llvm::BitVector WorkTransfer::waited(const WorkCall &W, const WorkState &Before, const WorkState &AfterDrain) const {
  llvm::BitVector Waited = Before.May;
  llvm::BitVector Left = AfterDrain.May;
  Left.flip();
  Waited &= Left;
  // Another element of the same array of streams (streams[0] for work on streams[k]): the
  // wait covers part of that work, not all of it.
  for (const Queue &Q : drainedQueues(W))
    if (Q.K == Queue::Named)
      for (unsigned I = 0; I < Origins.size(); ++I)
        if (Before.May.test(I) && Origins[I].Q.K == Queue::Named && Origins[I].Q.Stream == Q.Stream)
          Waited.set(I);
  return Waited;
}

} // namespace syncwatch
