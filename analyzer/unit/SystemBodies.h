// Function bodies in system headers (CUDA's, thrust's and cub's, PyTorch's under -isystem)
// are skipped at the parse, as clangd skips its preamble's: every check judges user code and
// recognizes library calls by their declarations, never by what the library's own bodies
// do, and instantiating thrust's and ATen's templates is most of a unit's parse. Sema keeps
// the bodies it needs: constexpr functions and those with a deduced return type
// (Sema::canSkipFunctionBody). The precompiled prelude and an editor's preamble are built the
// same way (PreludePch.cpp): with the bodies in the PCH, every parse from it instantiated the
// standard templates the file uses in full again.
#pragma once

#include "clang/AST/ASTConsumer.h"

#include <memory>

namespace clang {
class CompilerInstance;
}

namespace syncwatch {

// Inner, skipping system headers' function bodies in CI's parse (to be called from a
// frontend action's CreateASTConsumer, before the parse starts). SYNCWATCH_PARSE_ALL_BODIES=1
// parses every body (to compare): Inner is then returned as it is.
std::unique_ptr<clang::ASTConsumer> skippingSystemBodies(std::unique_ptr<clang::ASTConsumer> Inner,
                                                         clang::CompilerInstance &CI);

} // namespace syncwatch
