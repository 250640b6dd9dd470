// Error paths: the branch a program takes when a CUDA (or CUDA library) call returned an
// error - `if (cudaMallocHost(&h, n) != cudaSuccess) { cudaFree(d); return false; }`,
// `cudaError_t rc = ...; if (rc) { cleanup(); }`. Such a branch runs when something already
// failed, once, not in steady state: a device-wide wait there costs nothing anyone measures,
// and the work the failed call would have issued is not running. syncwatch-implicit-sync is
// silent there (issue 41: ggml's allreduce.cu frees on the error path of an allocation).
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace syncwatch {

// True when Condition holding means a CUDA status was not success: `X != cudaSuccess` (or any
// status compared unequal to its 0 success value), `X` tested as a truth value, and `&&` of
// which one side is such a test.
bool testsForError(const clang::Expr *Condition, clang::ASTContext &Ctx);

// True when Condition failing means a status was not success: `X == cudaSuccess`, `!X`.
bool testsForSuccess(const clang::Expr *Condition, clang::ASTContext &Ctx);

// True when S lies, inside its function, in the then-branch of an if that tests for an error
// or the else-branch of one that tests for success, or in a block that goes on to throw or to
// call a noreturn function (not counting blocks around a loop S is in).
bool onErrorPath(const clang::Stmt *S, clang::ASTContext &Ctx);

} // namespace syncwatch
