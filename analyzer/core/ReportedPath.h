// The one spelling of a source file that reports give, whichever unit found it.
//
// Clang names a header as its include path spelled it: AMGX's src/ units find include/ as
// `-I<root>/src/../include`, its examples/ as `<root>/examples/../include`, so one finding
// in a shared header came out twice under two names (the report's de-duplication is by
// name), and a baseline or label written against `include/x.h` matched neither.
#pragma once

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace syncwatch {

// Spelled made absolute against the parse's working directory (its file system's: each
// worker has its own), with `.` and `..` removed where that names the same file. A `..`
// after a symbolic link goes up from the link's target, not lexically: there the spelling
// is kept (both stat'ed; a file that does not exist, as a #line name, is cleaned
// lexically).
std::string reportedPath(llvm::StringRef Spelled, const clang::SourceManager &SM);

} // namespace syncwatch
