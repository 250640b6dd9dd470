// thrust's containers do GPU work in their constructors and assignments, always on the
// default stream (thrust has no stream argument for them): thrust::device_vector<T> v(n)
// value-initializes with a fill kernel, v(first, last) / v(host) copies to the device,
// host_vector h = d copies back and waits, d = h copies again. In a file that uses other
// streams that is legacy-stream work like any <<<>>> launch without a stream (the labelled
// corpus, bench/corpus: thrust's own examples and olcf's hw9 do it next to a created stream).
// Silent: the default and move constructors, thrust::no_init, a copy between host vectors.
#pragma once

#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <optional>
#include <string>

namespace syncwatch {

struct ContainerWork {
  const clang::Expr *E;        // the CXXConstructExpr or the operator= call
  clang::SourceLocation Loc;   // where to report (a file location)
  clang::SourceRange Range;
  std::string What;            // "'thrust::device_vector' construction fills its elements"
};

// Constructions and assignments of thrust::device_vector / host_vector. Binds
// "thrust-container".
clang::ast_matchers::StatementMatcher thrustContainerMatcher();

// The GPU work of a matched construction or assignment, or nullopt when it does none.
std::optional<ContainerWork> containerWorkOf(const clang::Expr &E, const clang::SourceManager &SM);

} // namespace syncwatch
