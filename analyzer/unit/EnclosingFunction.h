// The function a finding is in, for SARIF's logicalLocations: a release build's runtime
// sites have no line, only `function+offset`, and `syncwatch confirm` joins them to the
// static results of the same function (docs/ci.md). Built once per unit, at its first
// finding: one walk over the unit's function definitions.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace syncwatch {

struct FunctionName {
  std::string Qualified;  // "ns::Pool::drain": no parameters, no template arguments
  std::string Mangled;    // "_ZN2ns4Pool5drainEv", as the linker and the ELF symbol table name it
};

class EnclosingFunctions {
public:
  explicit EnclosingFunctions(clang::ASTContext &Ctx);
  // The innermost function definition whose body holds Loc (its expansion, for a macro);
  // a lambda's belongs to the function it is written in. Null outside any function.
  const FunctionName *at(clang::SourceLocation Loc) const;

private:
  struct Range {
    clang::FileID File;
    unsigned Begin, End;
    FunctionName Name;
  };
  const clang::SourceManager &SM;
  std::vector<Range> Ranges;
};

} // namespace syncwatch
