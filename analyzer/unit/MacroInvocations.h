// The macro invocation a finding is written in, for SARIF's contextRegion. A call in a
// checking macro's argument written over two lines,
//     CUDA_CHECK(
//         cudaMemcpyAsync(d_A, A.data(), bytes, cudaMemcpyHostToDevice, stream));
// is reported at its own line (100), but nvcc's and gcc's line tables give every call of an
// expanded macro the invocation's first line (99): `syncwatch confirm` joins a runtime site
// at any line of the invocation. Built once per unit, at its first finding.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"

#include <utility>
#include <vector>

namespace syncwatch {

class MacroInvocations {
public:
  explicit MacroInvocations(clang::ASTContext &Ctx);
  // The first and last line of the outermost macro invocation, over more than one line,
  // whose text holds Loc (a file location); {0, 0} when there is none.
  std::pair<unsigned, unsigned> linesAround(clang::SourceLocation Loc) const;

private:
  struct Range {
    clang::FileID File;
    unsigned Begin, End;          // file offsets of the invocation's text
    unsigned FirstLine, LastLine;
  };
  const clang::SourceManager &SM;
  std::vector<Range> Ranges;
};

} // namespace syncwatch
