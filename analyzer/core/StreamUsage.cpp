#include "StreamUsage.h"

#include "clang/AST/ASTContext.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace syncwatch {

void StreamUsage::registerMatchers(MatchFinder &Finder, MatchFinder::MatchCallback *Callback) {
  Finder.addMatcher(kernelLaunchMatcher(), Callback);
  Finder.addMatcher(catalogedCallMatcher(), Callback);
  Finder.addMatcher(libraryCallMatcher(), Callback);
  Finder.addMatcher(thrustContainerMatcher(), Callback);
}

void StreamUsage::reset() {
  Ctx = nullptr;
  DefineTooLate = false;
  Defaulted = DefaultedStreamParams();
  Running.reset();
  OtherStreams = false;
  Uses.clear();
  SyncLegacyCalls.clear();
  Creations.clear();
  Containers.clear();
  Seen.clear();
}

void StreamUsage::observe(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  if (const auto *Box = Result.Nodes.getNodeAs<Expr>("thrust-container")) {
    // thrust picks the per-thread stream when CUDA's headers were renamed for it.
    if (Ctx->Idents.get("cudaLaunchKernel").hasMacroDefinition())
      return;
    if (std::optional<ContainerWork> W = containerWorkOf(*Box, SM))
      if (Seen.insert({W->Loc.getRawEncoding(), 0u, nullptr}).second)
        Containers.push_back(*W);
    return;
  }
  if (const auto *Lib = Result.Nodes.getNodeAs<CallExpr>("library-call")) {
    observeLibraryCall(*Lib, SM);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("launch");
  if (!Call)
    Call = Result.Nodes.getNodeAs<CallExpr>("api-call");
  if (!Call || isOutsideUserCode(Call->getBeginLoc(), SM))
    return;
  const ApiInfo *Api = isa<CUDAKernelCallExpr>(Call) ? nullptr : catalogueEntry(*Call);
  if (!isa<CUDAKernelCallExpr>(Call) && !Api)
    return;

  SourceLocation CalleeLoc = reportLoc(Call->getBeginLoc(), SM);
  // Instantiations of one template share the written location: keep the first.
  // (The spelling location tells apart two calls written in one macro.)
  SourceLocation Spelled = SM.getSpellingLoc(Call->getBeginLoc());
  if (!Seen.insert({CalleeLoc.getRawEncoding(), Spelled.getRawEncoding(), Api}).second)
    return;

  if (Api && Api->Family == ApiFamily::StreamCreate) {
    StreamCreation C{Call, Api, true, nullptr, CalleeLoc};
    if (Api->FlagsArg >= 0 && static_cast<unsigned>(Api->FlagsArg) < Call->getNumArgs()) {
      C.FlagsArg = Call->getArg(Api->FlagsArg);
      Expr::EvalResult Value;
      if (C.FlagsArg->isValueDependent() || !C.FlagsArg->EvaluateAsInt(Value, *Ctx))
        return; // flags only known at run time: say nothing rather than guess
      C.Blocking = (Value.Val.getInt().getZExtValue() & kNonBlockingStreamFlag) == 0;
    }
    Creations.push_back(C);
    return;
  }
  if (Api && Api->issuesOnLegacyStream()) {
    // cudaMemcpy_ptds runs on the per-thread stream.
    if (!usesPerThreadDefaultStream(*Call, *Ctx))
      SyncLegacyCalls.push_back(Call);
    return;
  }
  std::optional<StreamArg> Stream = streamArgOf(*Call, Api, *Ctx);
  if (!Stream)
    return;
  StreamUse U{Call, Api, *Stream, usesPerThreadDefaultStream(*Call, *Ctx), CalleeLoc,
              Call->getSourceRange()};
  if (Stream->Expr) {
    U.Loc = reportLoc(Stream->Expr->getBeginLoc(), SM);
    U.Range = Stream->Expr->getSourceRange();
  } else {
    U.Range = SourceRange(Call->getBeginLoc(), Call->getBeginLoc()); // the callee's name
  }
  Uses.push_back(U);
}

// A thrust algorithm or cub call: a stream use like a launch's, at the callee's name, or at
// the stream it is given.
void StreamUsage::observeLibraryCall(const CallExpr &Call, const SourceManager &SM) {
  if (isOutsideUserCode(Call.getBeginLoc(), SM))
    return;
  const LibraryApi *Lib = libraryEntry(Call);
  if (!Lib)
    return;
  SourceLocation CalleeLoc = reportLoc(Call.getBeginLoc(), SM);
  SourceLocation Spelled = SM.getSpellingLoc(Call.getBeginLoc());
  if (!Seen.insert({CalleeLoc.getRawEncoding(), Spelled.getRawEncoding(), Lib}).second)
    return;
  LibraryStream LS = libraryStreamOf(Call, *Lib, *Ctx);
  if (LS.K == LibraryStream::NoGpuWork || LS.K == LibraryStream::Unknown)
    return;
  StreamArg Stream;
  if (LS.K == LibraryStream::Given) {
    Stream.Kind = classifyStreamArg(LS.Stream, *Ctx);
    Stream.Expr = Stream.Kind == StreamArgKind::Omitted ? nullptr : LS.Stream;
  }
  StreamUse U{&Call, nullptr, Stream, usesPerThreadDefaultStream(Call, *Ctx), CalleeLoc,
              SourceRange(Call.getBeginLoc(), Call.getBeginLoc())};
  // (A handle's stream was bound elsewhere, often in another function: the call is the place.)
  if (Stream.Expr && Lib->Shape != LibraryShape::HandleStream) {
    U.Loc = reportLoc(Stream.Expr->getBeginLoc(), SM);
    U.Range = Stream.Expr->getSourceRange();
  } else if (const auto *Callee = Call.getCallee()) {
    U.Range = Callee->getSourceRange();
  }
  U.Library = Lib;
  U.LibraryHow = LS.How;
  Uses.push_back(U);
}

void StreamUsage::finish() {
  if (!Ctx)
    return;
  DefineTooLate = perThreadMacroDefinedTooLate(*Ctx);
  for (StreamUse &U : Uses)
    if (U.Stream.Kind == StreamArgKind::Explicit && !U.Library)
      U.OnDefaultedParam = Defaulted.onlyDefaulted(U.Stream.Expr, *Ctx, Running);
  // Whether other streams run from this unit: the first creation or use that counts, in code
  // that runs from here. (Finding a call's function builds the unit's parent map: only for
  // the candidates, and only until one counts.)
  auto RunsHere = [&](const CallExpr *Call) {
    const FunctionDecl *In = enclosingFunction(*Call, *Ctx);
    return !In || !Running.neverCalledHere(*In, *Ctx);
  };
  OtherStreams = false;
  for (const StreamCreation &C : Creations)
    if ((OtherStreams = RunsHere(C.Call)))
      return;
  for (const StreamUse &U : Uses)
    if (countsAsOtherStream(U) && (OtherStreams = RunsHere(U.Call)))
      return;
}

bool StreamUsage::isLegacyWork(const StreamUse &U) {
  switch (U.Stream.Kind) {
  case StreamArgKind::Legacy:
    return true;
  case StreamArgKind::Omitted:
  case StreamArgKind::Null:
  case StreamArgKind::FlagAsStream:
    // With a per-thread default stream, "no stream" and 0 mean the thread's own stream.
    return !U.PerThreadDefault;
  case StreamArgKind::PerThread:
  case StreamArgKind::Explicit:
    return false;
  }
  return false;
}

bool StreamUsage::hasLegacyWork() const { return firstLegacyWork(nullptr) != nullptr || !Containers.empty(); }

const ContainerWork *StreamUsage::firstContainerWork() const {
  const ContainerWork *First = nullptr;
  for (const ContainerWork &W : Containers)
    if (!First || (Ctx && Ctx->getSourceManager().isBeforeInTranslationUnit(W.Loc, First->Loc)))
      First = &W;
  return First;
}

const CallExpr *StreamUsage::firstLegacyWork(SourceLocation *Loc) const {
  const CallExpr *First = nullptr;
  SourceLocation FirstLoc;
  auto Consider = [&](const CallExpr *C, SourceLocation L) {
    if (!First || (Ctx && Ctx->getSourceManager().isBeforeInTranslationUnit(L, FirstLoc))) {
      First = C;
      FirstLoc = L;
    }
  };
  for (const StreamUse &U : Uses)
    if (isLegacyWork(U))
      Consider(U.Call, U.Loc);
  if (Ctx)
    for (const CallExpr *C : SyncLegacyCalls)
      Consider(C, reportLoc(C->getBeginLoc(), Ctx->getSourceManager()));
  if (Loc)
    *Loc = FirstLoc;
  return First;
}

bool StreamUsage::countsAsOtherStream(const StreamUse &U) {
  return (U.Stream.Kind == StreamArgKind::Explicit && !U.OnDefaultedParam) || U.Stream.Kind == StreamArgKind::PerThread ||
         (U.PerThreadDefault && U.Stream.Kind != StreamArgKind::Legacy);
}

bool StreamUsage::usesOtherStreams() const { return OtherStreams; }

} // namespace syncwatch
