// Recognizing CUDA in the AST: catalogued API calls, kernel launches, stream arguments.
#pragma once

#include "syncwatch/catalogue.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <optional>

namespace syncwatch {

// callExpr to any catalogued API (all spellings: _v2, _ptsz ...). Binds "api-call".
clang::ast_matchers::StatementMatcher catalogedCallMatcher();
// <<<...>>> launches. Binds "launch".
clang::ast_matchers::StatementMatcher kernelLaunchMatcher();

// The catalogue entry of a call's callee, or nullptr.
const ApiInfo *catalogueEntry(const clang::CallExpr &Call);

// How a stream argument was written.
enum class StreamArgKind {
  Omitted,        // not written: the header's default (the legacy stream) applies
  Null,           // 0, NULL, nullptr
  FlagAsStream,   // cudaStreamDefault: a creation flag (0) misused as a stream
  Legacy,         // cudaStreamLegacy or (cudaStream_t)1
  PerThread,      // cudaStreamPerThread or (cudaStream_t)2
  Explicit,       // anything else: a variable, a member, a call
};

StreamArgKind classifyStreamArg(const clang::Expr *Arg, clang::ASTContext &Ctx);

// The stream argument of a launch or catalogued call: the expression (nullptr when
// omitted) and its kind. nullopt when the call takes no stream.
struct StreamArg {
  const clang::Expr *Expr = nullptr;
  StreamArgKind Kind = StreamArgKind::Omitted;
};
std::optional<StreamArg> streamArgOf(const clang::CallExpr &Call, const ApiInfo *Api,
                                     clang::ASTContext &Ctx);

// True when the user wrote this argument (default arguments appear in the AST as
// CXXDefaultArgExpr; they do not count).
bool isWritten(const clang::Expr *Arg);

// An integer argument's value, when it is a constant (a cudaMemcpyKind, a byte count).
std::optional<std::int64_t> constantInt(const clang::Expr *E, clang::ASTContext &Ctx);

// cudaStream_t and CUstream are both `struct CUstream_st *`.
bool isStreamType(clang::QualType T);

// Where to report something located at Loc: the file position a user can see and
// NOLINT (a macro body's expansion site, a macro argument's spelling).
clang::SourceLocation reportLoc(clang::SourceLocation Loc, const clang::SourceManager &SM);
clang::CharSourceRange reportRange(clang::SourceRange R, const clang::SourceManager &SM,
                                   const clang::LangOptions &LO);

// The function definition a statement is written in (a lambda's: the function around it),
// or null at namespace scope.
const clang::FunctionDecl *enclosingFunction(const clang::Stmt &S, clang::ASTContext &Ctx);

// True for code the user did not write: system headers, or no valid location.
bool isOutsideUserCode(clang::SourceLocation Loc, const clang::SourceManager &SM);

// Whether "no stream" / stream 0 means the per-thread default stream for this call.
// Measured, not assumed (see docs/rules/syncwatch-default-stream.md):
//  - an API call does when CUDA's headers renamed it (cudaMemcpyAsync_ptsz,
//    cuLaunchKernel_ptsz): CUDA_API_PER_THREAD_DEFAULT_STREAM was defined before
//    cuda_runtime_api.h / cuda.h. nvcc --default-stream per-thread passes it with -D, and
//    clang's cc1 defines it for -fgpu-default-stream=per-thread;
//  - a <<<>>> launch does under clang's per-thread option or when cudaLaunchKernel itself
//    was renamed (nvcc's launch stubs call cudaLaunchKernel).
// A #define in the .cu file itself comes too late: both compilers include cuda_runtime.h
// before the first line.
bool usesPerThreadDefaultStream(const clang::CallExpr &Call, clang::ASTContext &Ctx);

// CUDA_API_PER_THREAD_DEFAULT_STREAM is defined, but after CUDA's headers were read
// (nvcc and clang include cuda_runtime.h before the first line of a .cu file), so it
// changed nothing.
bool perThreadMacroDefinedTooLate(clang::ASTContext &Ctx);

// The name the user called: the callee's name, or the kernel's name for a launch.
std::string calleeName(const clang::CallExpr &Call);

} // namespace syncwatch
