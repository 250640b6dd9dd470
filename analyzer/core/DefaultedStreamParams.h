// A stream parameter that defaults to the legacy stream and that no call in the unit sets:
// `void launch(float *d, cudaStream_t stream = nullptr)` called as `launch(d)` (CUTLASS's
// device operators, and most helpers written after them). Work given that parameter runs
// on the legacy stream in this unit, so it is no sign that the unit "uses other streams"
// (syncwatch-sync-memcpy's scope, syncwatch-default-stream's severity). A parameter with no
// call in the unit, or one that some call sets to anything but a null stream, still counts:
// its callers may be elsewhere (unless its function is inline or internal and the unit never
// references it: a caller elsewhere compiles its own copy).
#pragma once

#include "RunningCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <map>
#include <set>
#include <vector>

namespace syncwatch {

class DefaultedStreamParams {
public:
  // Whether Stream (a launch's or call's stream argument) names such a parameter, or a member
  // stream that the unit only ever sets to a null stream or to such a parameter (CUTLASS's
  // GpuTimer: `_stream_id(0)`, then `_stream_id = stream_id` from `start(cudaStream_t
  // stream_id = 0)`).
  bool onlyDefaulted(const clang::Expr *Stream, clang::ASTContext &Ctx, RunningCode &Running);

  using Key = std::pair<const clang::FunctionDecl *, unsigned>;  // (function, parameter index)
  struct Uses {
    bool Defaulted = false;  // a call left it to its default
    bool Set = false;        // a call gave it a stream that is not null
    // Calls that pass on a parameter of their own with a null default (a `run(args, stream)`
    // that forwards to `operator()(args, stream)`): set where that one is.
    std::vector<Key> Forwarded;
  };
private:
  void collect(clang::ASTContext &Ctx);
  bool setSomewhere(const Key &K, std::set<Key> &Seen, RunningCode &Running, clang::ASTContext &Ctx) const;
  bool Collected = false;
  std::map<Key, Uses> ByParam;  // how the unit's calls fill each defaulted parameter
  // How the unit writes each member stream (initializers, assignments; Set: anything else,
  // its address taken included). Defaulted: some write was seen.
  std::map<const clang::FieldDecl *, Uses> ByField;
};

} // namespace syncwatch
