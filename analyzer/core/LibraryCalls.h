// Calls of thrust and cub entry points (rules/library_api.def), and the stream their GPU
// work runs on: a thrust algorithm without an execution policy on a stream, or a
// cub::Device* call without its stream argument, is legacy-default-stream work like a
// <<<g, b>>> launch.
#pragma once

#include "syncwatch/library.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace syncwatch {

// "thrust::sort", "cub::DeviceReduce::Sum": namespaces and classes, inline namespaces
// (CCCL's versioned ones) left out.
std::string libraryName(const clang::FunctionDecl &FD);
const LibraryApi *libraryEntry(const clang::CallExpr &Call);

struct LibraryStream {
  enum Kind : unsigned char {
    NoGpuWork,   // host iterators, a host policy, a cub temp-storage size query
    Default,     // no stream: the legacy default stream
    Given,       // Stream is the stream expression (par.on(s), the cub stream argument)
    Unknown,     // a policy we do not know: say nothing
  } K = Unknown;
  const clang::Expr *Stream = nullptr;
  bool Waits = false;   // the host waits for it before the call returns
  std::string How;      // "without an execution policy", "with thrust::device", ...
};
LibraryStream libraryStreamOf(const clang::CallExpr &Call, const LibraryApi &Api,
                              clang::ASTContext &Ctx);

// callExpr to a catalogued library entry point. Binds "library-call".
clang::ast_matchers::StatementMatcher libraryCallMatcher();

} // namespace syncwatch
