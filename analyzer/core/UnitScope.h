// The top-level declarations an analysis of the unit covers. A whole unit's, or - with a
// traversal scope set (syncwatch-lsp: the declarations parsed after the file's precompiled
// preamble, as clangd scopes clang-tidy) - the scope's: the walks of the unit's own code must
// not deserialize and walk every declaration of the headers in the preamble at each edit.
#pragma once

#include "clang/AST/ASTContext.h"

#include <vector>

namespace syncwatch {

// The scope's declarations, or the translation unit's top-level declarations.
std::vector<clang::Decl *> unitScopeDecls(clang::ASTContext &Ctx);

// A traversal scope for the file's own code: Parsed (the declarations parsed after the
// preamble) and the definitions, in the preamble's user headers (not system headers), of the
// functions they call or name, and of those these call, and so on. A rule's facts come from
// the helpers too: a header's helper that launches on the legacy stream makes the file's
// cudaStreamCreate a blocking-stream finding, as in the whole unit. At most MaxHelpers are
// added (a file calling into a large header library stays an edit's cost).
std::vector<clang::Decl *> scopeWithHelpers(clang::ASTContext &Ctx, std::vector<clang::Decl *> Parsed,
                                            std::size_t MaxHelpers = 4096);

} // namespace syncwatch
