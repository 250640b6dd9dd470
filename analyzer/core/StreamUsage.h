// What a translation unit does with streams: every launch and stream-taking call with
// how its stream was written, every synchronous copy/memset (legacy-stream work), every
// stream creation. The default-stream and blocking-stream rules judge a call by the rest
// of the unit (is anything else there to serialize with?), so they collect first and
// decide at the end of the unit.
#pragma once

#include "CudaCalls.h"
#include "DefaultedStreamParams.h"
#include "LibraryCalls.h"
#include "ThrustContainers.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <set>
#include <tuple>
#include <vector>

namespace syncwatch {

struct StreamUse {
  const clang::CallExpr *Call;     // the API call, the CUDAKernelCallExpr, the library call
  const ApiInfo *Api;              // nullptr for <<<...>>> launches and library calls
  StreamArg Stream;
  bool PerThreadDefault;           // "no stream" and 0 mean the per-thread stream here
  clang::SourceLocation Loc;       // where to report: the stream argument, or the callee
  clang::SourceRange Range;
  const LibraryApi *Library = nullptr;  // a thrust / cub entry point (library_api.def)
  std::string LibraryHow;               // "without an execution policy", ...
  // Given a `cudaStream_t stream = nullptr` parameter that no call in the unit sets
  // (DefaultedStreamParams.h): no sign of other streams. Set by finish().
  bool OnDefaultedParam = false;
};

struct StreamCreation {
  const clang::CallExpr *Call;
  const ApiInfo *Api;
  bool Blocking;                   // flags absent or without the non-blocking bit
  const clang::Expr *FlagsArg;     // nullptr for cudaStreamCreate
  clang::SourceLocation Loc;
};

class StreamUsage {
public:
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder,
                        clang::ast_matchers::MatchFinder::MatchCallback *Callback);
  void observe(const clang::ast_matchers::MatchFinder::MatchResult &Result);
  void reset();

  // Work that lands on the legacy default stream.
  static bool isLegacyWork(const StreamUse &U);
  bool hasLegacyWork() const;
  // The first legacy-stream work in the unit (for notes), or nullptr.
  const clang::CallExpr *firstLegacyWork(clang::SourceLocation *Loc) const;
  // Other streams in use: created here, or passed explicitly (a variable, a member,
  // cudaStreamPerThread), or the per-thread default stream itself - in code that runs from
  // this unit (RunningCode.h), and not on a parameter only ever left to a null default
  // (DefaultedStreamParams.h). Known after finish().
  bool usesOtherStreams() const;

  // A per-thread #define that came too late to change anything (for the message).
  bool perThreadDefineTooLate() const { return DefineTooLate; }
  clang::ASTContext *context() const { return Ctx; }
  const std::vector<StreamUse> &uses() const { return Uses; }
  const std::vector<StreamCreation> &creations() const { return Creations; }
  // Synchronous copies and memsets on the legacy stream (cudaMemcpy, cudaMemset...).
  const std::vector<const clang::CallExpr *> &syncLegacyCalls() const { return SyncLegacyCalls; }
  // thrust container constructions and assignments that do GPU work on the legacy stream
  // (none in a per-thread build: thrust then uses the thread's stream).
  const std::vector<ContainerWork> &containerWork() const { return Containers; }
  const ContainerWork *firstContainerWork() const;

  // Call after the unit is parsed (macro state is final then).
  void finish();

private:
  static bool countsAsOtherStream(const StreamUse &U);
  void observeLibraryCall(const clang::CallExpr &Call, const clang::SourceManager &SM);

  clang::ASTContext *Ctx = nullptr;
  bool DefineTooLate = false;
  DefaultedStreamParams Defaulted;
  RunningCode Running;
  bool OtherStreams = false;  // usesOtherStreams(), set by finish()
  std::vector<StreamUse> Uses;
  std::vector<const clang::CallExpr *> SyncLegacyCalls;  // cudaMemcpy, cudaMemset, ...
  std::vector<StreamCreation> Creations;
  std::vector<ContainerWork> Containers;
  // A template's call appears once per instantiation; one report location is one use.
  std::set<std::tuple<unsigned, unsigned, const void *>> Seen;
};

} // namespace syncwatch
