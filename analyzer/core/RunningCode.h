// Which functions run from this unit. A shared header's helpers (CUTLASS's
// examples/common/helper.h GpuTimer, any project's utils.cuh) are compiled into every unit
// that includes them, but run only where something calls them: stream work in one that this
// unit never reaches is no sign that the unit uses other streams. A unit that does call it
// compiles its own copy and is judged there.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <set>

namespace syncwatch {

class RunningCode {
public:
  // An inline or internal function of a header (not the unit's own file) that nothing here
  // references from code that runs: not referenced at all, or only from the body of a
  // template nothing instantiated (CUTLASS's run_benchmark<Func> starts a GpuTimer;
  // basic_gemm never calls run_benchmark). Templates' own functions, virtual functions and
  // destructors are never "not called": their callers can be implicit.
  bool neverCalledHere(const clang::FunctionDecl &F, clang::ASTContext &Ctx);
  void reset() {
    Built = false;
    Referenced.clear();
  }

private:
  bool Built = false;
  std::set<const clang::FunctionDecl *> Referenced;  // canonical declarations
};

} // namespace syncwatch
